// zlib's inflate, for gzip files served as they are (the METAR cache file), not as a
// Content-Encoding (which AsyncHTTPClient already inflates).
#include <zlib.h>
