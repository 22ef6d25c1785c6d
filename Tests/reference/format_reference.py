"""`isobar format`'s annotations and callouts, written from PROTOCOL.md ("Formatting rules, exactly")
alone. Compared with the real formatter by protocol_check.py."""
import datetime
import math

POINTS = {"en": "N NNE NE ENE E ESE SE SSE S SSW SW WSW W WNW NW NNW".split(),
          "sk": "S SSV SV VSV V VJV JV JJV J JJZ JZ ZJZ Z ZSZ SZ SSZ".split()}
ARROWS = "↑↗→↘↓↙←↖"
UNIT = {"mph": (lambda s: s, "mph"), "kmh": (lambda s: s * 1.609344, "km/h"), "knots": (lambda s: s * 1.609344 / 1.852, "kn")}
WORDS = {"en": {"calm": "calm", "sep": ".", "from": "from", "today": "Today", "tomorrow": "Tomorrow",
                "labels": ("Temperature", "Wind", "Chance of precipitation", "Coordinates"), "nsew": ("N", "S", "E", "W")},
         "sk": {"calm": "bezvetrie", "sep": ",", "from": "od", "today": "Dnes", "tomorrow": "Zajtra",
                "labels": ("Teplota", "Vietor", "Pravdepodobnosť zrážok", "Súradnice"), "nsew": ("s. š.", "j. š.", "v. d.", "z. d.")}}


# Labels of the optional fields, in the order PROTOCOL.md lists them.
MORE = {"en": ("Feels like", "Low", "High", "Humidity", "Pressure", "Dew point", "Visibility", "UV index", "Wind gusts",
               "Cloud cover", "Conditions", "Sunrise", "Sunset", "Observed"),
        "sk": ("Pocitová teplota", "Minimum", "Maximum", "Vlhkosť", "Tlak", "Rosný bod", "Viditeľnosť", "UV index", "Nárazy vetra",
               "Oblačnosť", "Počasie", "Východ slnka", "Západ slnka", "Pozorované")}


def utc(t, with_date):
    """`HH:MM UTC` or `YYYY-MM-DD HH:MM UTC` (Python's calendar, not Isobar's)."""
    moment = datetime.datetime.fromtimestamp(math.floor(t), datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M UTC" if with_date else "%H:%M UTC")


def r6(v):
    """`round(v * 1e6) / 1e6`, ties away from zero, -0 as 0 (PROTOCOL.md, "Data beside text")."""
    if abs(v) >= 1e9:
        return v + 0.0
    x = v * 1e6
    f = math.floor(abs(x))
    r = f + 1 if abs(x) - f >= 0.5 else f
    return math.copysign(r, x) / 1e6 + 0.0


def data(key, number=None, unit=None, **more):
    """A line's data members in PROTOCOL.md's order (times in UTC: the check runs `format --places ""`)."""
    d = {"key": key}
    if number is not None:
        d["number"] = r6(number)
        d["unit"] = unit
    for name in ("calm", "direction", "precipType"):
        if more.get(name) is not None:
            d[name] = more[name]
    if more.get("time") is not None:
        t = more["time"]
        d["time"] = t
        d["zone"] = "UTC"
        d["local"] = datetime.datetime.fromtimestamp(math.floor(t), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    if more.get("coordinate") is not None:
        d["latitude"], d["longitude"] = more["coordinate"]
    return d


def detail_lines(s, units, wind_unit, locale):
    """The callout lines of the optional fields that are present, each with its data."""
    labels = MORE[locale]
    convert, label = UNIT[wind_unit]
    tu = "°C" if units == "metric" else "°F"
    unit = " " + tu
    lines = []
    for key, name in (("feelsLike", labels[0]), ("temperatureLow", labels[1]), ("temperatureHigh", labels[2])):
        if s.get(key) is not None:
            v = temp(s[key], units)
            lines.append((name, N(v, 1, locale) + unit, data(key, v, tu)))
    if s.get("humidity") is not None:
        lines.append((labels[3], N(s["humidity"], 0, locale) + " %", data("humidity", s["humidity"], "%")))
    if s.get("pressure") is not None:
        hpa = s["pressure"]
        if units == "metric":
            lines.append((labels[4], N(hpa, 0, locale) + " hPa", data("pressure", hpa, "hPa")))
        else:
            lines.append((labels[4], N(hpa / 33.86388640341, 2, locale) + " inHg", data("pressure", hpa / 33.86388640341, "inHg")))
    if s.get("dewPoint") is not None:
        v = temp(s["dewPoint"], units)
        lines.append((labels[5], N(v, 1, locale) + unit, data("dewPoint", v, tu)))
    if s.get("visibility") is not None:
        mi = s["visibility"]
        if units == "metric":
            lines.append((labels[6], N(mi * 1.609344, 1, locale) + " km", data("visibility", mi * 1.609344, "km")))
        else:
            lines.append((labels[6], N(mi, 1, locale) + " mi", data("visibility", mi, "mi")))
    if s.get("uvIndex") is not None:
        lines.append((labels[7], N(s["uvIndex"], 0, locale), data("uvIndex", s["uvIndex"], "")))
    if s.get("windGust") is not None:
        v = convert(s["windGust"])
        lines.append((labels[8], N(v, 1, locale) + " " + label, data("windGust", v, label)))
    if s.get("cloudCover") is not None:
        lines.append((labels[9], N(s["cloudCover"], 0, locale) + " %", data("cloudCover", s["cloudCover"], "%")))
    if s.get("summary") is not None:
        lines.append((labels[10], s["summary"], data("summary")))
    for key, name, with_date in (("sunrise", labels[11], False), ("sunset", labels[12], False), ("observedAt", labels[13], True)):
        if s.get(key) is not None:
            lines.append((name, utc(s[key], with_date), data(key, time=s[key])))
    return lines


def rnd(v):
    """round(): to nearest, ties away from zero."""
    t = float(math.trunc(v))
    return t + math.copysign(1.0, v) if abs(v - t) >= 0.5 else t


def N(v, d, locale):
    scale = 10.0 ** d
    r = rnd(v * scale) / scale + 0.0
    if d == 0:
        return str(int(r))
    units = int(rnd(abs(r) * scale))
    return ("-" if r < 0 else "") + str(units // int(scale)) + WORDS[locale]["sep"] + str(units % int(scale)).rjust(d, "0")


def norm(a):
    r = math.fmod(a, 360)
    return r + 360 if r < 0 else r


def point(a, locale):
    return POINTS[locale][int(rnd(norm(a) / 22.5)) % 16]


def rotation(a):
    return norm(a + 180)


def arrow(a):
    return ARROWS[int(rnd(rotation(a) / 45)) % 8]


def resolve(message, defaults=("temperature", "imperial", None, "en")):
    field = message.get("field", defaults[0])
    units = message.get("units", defaults[1])
    if "windUnit" in message:
        wind_unit = message["windUnit"]
    elif "units" in message:
        wind_unit = "kmh" if units == "metric" else "mph"
    else:
        wind_unit = defaults[2] or ("kmh" if defaults[1] == "metric" else "mph")
    return field, units, wind_unit, message.get("locale", defaults[3])


def temp(t, units):
    return None if t is None else (t - 32) * 5 / 9 if units == "metric" else t


def annotation(item, field, units, wind_unit, locale):
    out = {"id": item["id"], "coordinate": {"latitude": item["latitude"], "longitude": item["longitude"]}}
    convert, label = UNIT[wind_unit]
    speed, d = item.get("windSpeed"), item.get("windDirection")
    calm = speed is not None and N(convert(speed), 0, locale) == "0"
    if field == "temperature":
        t = temp(item.get("temperature"), units)
        out["title"] = "" if t is None else N(t, 0, locale) + "°"
    elif field == "precipitation":
        p = item.get("precipitation")
        out["title"] = "" if p is None else N(p, 0, locale) + "%"
    else:
        out["title"] = ("" if speed is None else WORDS[locale]["calm"] if calm else N(convert(speed), 0, locale) + " " + label
                        + ("" if d is None else " " + point(d, locale) + " " + arrow(d)))
    if item.get("cluster"):
        n = item["count"]
        out["subtitle"] = (f"{n} station" + ("" if n == 1 else "s")) if locale == "en" else \
            "1 stanica" if n == 1 else f"{n} stanice" if 2 <= n <= 4 else f"{n} staníc"
        out["cluster"] = True
        out["count"] = n
    else:
        out["subtitle"] = item.get("name", "")
    if field == "temperature":
        t = temp(item.get("temperature"), units)
        out["value"] = None if t is None else rnd(t * 10) / 10 + 0.0
    elif field == "precipitation":
        out["value"] = item.get("precipitation")
    elif speed is not None:
        wind = {"speed": rnd(convert(speed) * 10) / 10 + 0.0, "unit": label, "calm": calm}
        if d is not None and not calm:
            wind.update({"from": point(d, locale), "fromDegrees": norm(d), "to": point(rotation(d), locale),
                         "arrow": arrow(d), "rotation": rotation(d)})
        out["wind"] = wind
    return out


def callout_details(s, units, wind_unit, locale):
    w = WORDS[locale]
    convert, label = UNIT[wind_unit]
    tu = "°C" if units == "metric" else "°F"
    lines = []
    t = temp(s["temperature"], units)
    if t is not None:
        lines.append((w["labels"][0], N(t, 1, locale) + " " + tu, data("temperature", t, tu)))
    if s["windSpeed"] is not None:
        v = convert(s["windSpeed"])
        d = s["windDirection"]
        calm = N(v, 0, locale) == "0"
        if calm:
            text = w["calm"]
        else:
            text = N(v, 1, locale) + " " + label
            if d is not None:
                text += " " + w["from"] + " " + point(d, locale) + " (" + N(norm(d), 0, locale) + "°) " + arrow(d)
        lines.append((w["labels"][1], text, data("windSpeed", v, label, calm=calm, direction=None if d is None else norm(d))))
    if s["precipitation"] is not None:
        lines.append((w["labels"][2], N(s["precipitation"], 0, locale) + " %",
                      data("precipitation", s["precipitation"], "%", precipType=s.get("precipType"))))
    lines += detail_lines(s, units, wind_unit, locale)
    lat, lon = s["latitude"], s["longitude"]
    lines.append((w["labels"][3], N(abs(lat), 4, locale) + "° " + (w["nsew"][1] if lat < 0 else w["nsew"][0]) + ", "
                  + N(abs(lon), 4, locale) + "° " + (w["nsew"][3] if lon < 0 else w["nsew"][2]), data("coordinates", coordinate=(lat, lon))))
    return [{"label": a, "value": b, **c} for a, b, c in lines]
