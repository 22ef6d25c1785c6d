/// Where a member sits in a ``PingWheel`` (its slot and its index in that slot), kept by the
/// member itself so that removing it costs no search and no dictionary.
struct PingWheelPosition: Equatable {
    var slot: Int32
    var index: Int32
}

/// Something a ``PingWheel`` holds: it keeps its own position (nil while not in a wheel).
protocol PingWheelMember: AnyObject {
    var wheelPosition: PingWheelPosition? { get set }
}

/// A timing wheel of connections by due time: `resolution`-second slots around a ring that
/// spans `horizon` seconds (the farthest a due time may lie ahead). Pure, time passed in.
///
/// Why a wheel: the liveness check must cost nothing per connection per tick when nothing is
/// due (issue 32). A member sits in the slot of its due time; a tick takes out only the slots
/// whose time has come, so a tick touches the members due then and no other. Adding and removing
/// are O(1) (a removed member's place is taken by its slot's last). A member's due time only ever
/// moves later between two checks (it is a connection's last activity plus the interval), so it
/// is not moved when it changes: the check at the old due time finds it not due yet and puts it
/// back at its new one. A talking connection costs one look per interval, a silent one a ping.
struct PingWheel<Member: PingWheelMember> {
    let resolution: Double
    /// The time of tick 0.
    private let origin: Double
    private var slots: [[Member]]
    /// The last tick whose slot was taken out (everything due by its time is out).
    private var lastTick: Int
    private(set) var count = 0

    init(resolution: Double, horizon: Double, now: Double) {
        self.resolution = resolution
        origin = now
        lastTick = 0
        // One slot per tick over the horizon, plus the tick under way and one for rounding.
        slots = Array(repeating: [], count: Int((horizon / resolution).rounded(.up)) + 2)
    }

    /// The tick of `time`, rounded `rule`.
    private func tick(_ time: Double, _ rule: FloatingPointRoundingRule) -> Int {
        let exact = ((time - origin) / resolution).rounded(rule)
        return exact.isFinite ? Int(max(min(exact, 1e15), -1e15)) : lastTick
    }

    /// The tick whose slot holds members due at `time`: the first tick at or after it, and never
    /// one already taken out (a member due in the past is due at the next tick), nor one a lap
    /// or more after `now` (the ring holds one lap; such a member is looked at a lap early, found
    /// not due and put back).
    private func tick(for time: Double, now: Double) -> Int {
        let latest = max(lastTick, tick(now, .down)) + slots.count - 1
        return min(max(tick(time, .up), lastTick + 1), latest)
    }

    /// The time of tick `tick`.
    func time(ofTick tick: Int) -> Double { origin + Double(tick) * resolution }

    /// Puts `member` (not in the wheel) in the slot of `due`, at `now`.
    mutating func insert(_ member: Member, due: Double, now: Double) {
        catchUp(to: tick(now, .down) - 1)
        let slot = tick(for: due, now: now) % slots.count
        member.wheelPosition = PingWheelPosition(slot: Int32(slot), index: Int32(slots[slot].count))
        slots[slot].append(member)
        count += 1
    }

    /// Moves `lastTick` over the empty slots before `target`: no member is due there, and the ring
    /// then covers a lap from now, so a member due an interval ahead does not share a slot with an
    /// earlier tick (it would be looked at a lap early, found not due and put back).
    private mutating func catchUp(to target: Int) {
        if count == 0 { lastTick = max(lastTick, target); return }
        while lastTick < target, slots[(lastTick + 1) % slots.count].isEmpty { lastTick += 1 }
    }

    /// Takes `member` out (nothing when it is not in the wheel).
    mutating func remove(_ member: Member) {
        guard let position = member.wheelPosition else { return }
        let slot = Int(position.slot), index = Int(position.index)
        guard slot < slots.count, index < slots[slot].count, slots[slot][index] === member else { return }
        let last = slots[slot].removeLast()
        if last !== member {
            slots[slot][index] = last
            last.wheelPosition = position
        }
        member.wheelPosition = nil
        count -= 1
    }

    /// Takes out every member whose tick's time is at or before `now`, oldest tick first; the
    /// caller checks each and inserts again those not done with.
    mutating func takeDue(now: Double) -> [Member] {
        var due: [Member] = []
        let nowTick = tick(now, .down)
        while lastTick + 1 <= nowTick, count > 0 {
            lastTick += 1
            let slot = lastTick % slots.count
            guard !slots[slot].isEmpty else { continue }
            for member in slots[slot] { member.wheelPosition = nil }
            count -= slots[slot].count
            due += slots[slot]
            slots[slot].removeAll(keepingCapacity: true)
        }
        // An empty wheel keeps time all the same.
        if count == 0 { lastTick = max(lastTick, nowTick) }
        return due
    }

    /// Puts back the members a pass checked, each at the due time its check returned (nil: it is
    /// done with, dropped or closed). Separate from ``takeDue(now:)`` because a check may close its
    /// connection, which takes it out of the wheel: no check runs inside a mutation of the wheel.
    mutating func putBack(_ checked: [(member: Member, due: Double?)], now: Double) {
        for (member, due) in checked {
            if let due { insert(member, due: due, now: now) }
        }
    }

    /// The time of the first tick that has a member due, nil when the wheel is empty: when the
    /// owner's timer should fire next.
    func nextDue() -> Double? {
        guard count > 0 else { return nil }
        for tick in (lastTick + 1)...(lastTick + slots.count) where !slots[tick % slots.count].isEmpty {
            return time(ofTick: tick)
        }
        return nil
    }
}
