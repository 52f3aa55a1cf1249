// Package retryafter parses the Retry-After response header (RFC 9110
// §10.2.3) into a delay in milliseconds from a given now.
//
// Both forms are read: delay-seconds ("120") and HTTP-date in IMF-fixdate
// ("Sun, 06 Nov 1994 08:49:37 GMT"), plus the two obsolete date forms every
// recipient must accept, RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and
// asctime ("Sun Nov  6 08:49:37 1994"). Anything else is malformed, and a
// malformed header is treated as absent. The date is parsed by hand: the
// "time" package would add 37 KB (brotli) to the wasm.
package retryafter

// MaxDelayMs is where a delay saturates: the largest integer a JS number holds
// exactly. Callers clamp far lower (cooldown, circuit max TTL); this only keeps
// huge delay-seconds from overflowing.
const MaxDelayMs = 1<<53 - 1

// Parse returns the delay that value asks for, measured from nowMs (Unix ms).
// A date in the past is a delay of 0. ok is false when value is malformed
// ("0.5", "5s", "-1", two values): treat it as absent, never as a long pause.
func Parse(value string, nowMs int64) (delayMs int64, ok bool) {
	value = trim(value)
	if value == "" {
		return 0, false
	}
	if isDigit(value[0]) {
		return parseSeconds(value)
	}
	dateMs, ok := ParseDate(value)
	if !ok {
		return 0, false
	}
	switch {
	case nowMs >= dateMs:
		return 0, true
	case nowMs < dateMs-MaxDelayMs: // dateMs-nowMs would overflow or saturate
		return MaxDelayMs, true
	}
	return dateMs - nowMs, true
}

// parseSeconds reads 1*DIGIT, saturating at MaxDelayMs.
func parseSeconds(s string) (int64, bool) {
	var n int64
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		if n <= MaxDelayMs/1000 { // past that, keep checking digits only
			n = n*10 + int64(s[i]-'0')
		}
	}
	if n > MaxDelayMs/1000 {
		return MaxDelayMs, true
	}
	return n * 1000, true
}

// ParseDate reads an HTTP-date in any of its three forms and returns it as
// Unix milliseconds. Names are case-sensitive, as RFC 9110 writes them; the
// weekday must be a weekday name but is not checked against the date. Leap
// seconds (":60") are rejected, as net/http does. In an RFC 850 date the
// two-digit year is 19yy for yy >= 69 and 20yy otherwise, as net/http reads it.
func ParseDate(s string) (ms int64, ok bool) {
	switch {
	case len(s) == len("Sun, 06 Nov 1994 08:49:37 GMT") && s[3] == ',':
		return imfFixdate(s)
	case len(s) == len("Sun Nov  6 08:49:37 1994") && s[3] == ' ':
		return asctime(s)
	}
	return rfc850(s)
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
func imfFixdate(s string) (int64, bool) {
	if weekday(s[:3]) < 0 || s[3:5] != ", " || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[25:] != " GMT" {
		return 0, false
	}
	return civil(num(s[12:16]), month(s[8:11]), num(s[5:7]), s[17:25])
}

// "Sun Nov  6 08:49:37 1994"; a one-digit day is padded with a space.
func asctime(s string) (int64, bool) {
	if weekday(s[:3]) < 0 || s[7] != ' ' || s[10] != ' ' || s[19] != ' ' {
		return 0, false
	}
	day := s[8:10]
	if day[0] == ' ' {
		day = day[1:]
	}
	return civil(num(s[20:24]), month(s[4:7]), num(day), s[11:19])
}

// "Sunday, 06-Nov-94 08:49:37 GMT"
func rfc850(s string) (int64, bool) {
	comma := -1
	for i := 0; i < len(s) && i < 10; i++ {
		if s[i] == ',' {
			comma = i
			break
		}
	}
	if comma < 0 || longWeekday(s[:comma]) < 0 {
		return 0, false
	}
	s = s[comma:]
	if len(s) != len(", 06-Nov-94 08:49:37 GMT") || s[:2] != ", " || s[4] != '-' || s[8] != '-' || s[11] != ' ' || s[20:] != " GMT" {
		return 0, false
	}
	year := num(s[9:11])
	switch {
	case year < 0:
	case year >= 69:
		year += 1900
	default:
		year += 2000
	}
	return civil(year, month(s[5:8]), num(s[2:4]), s[12:20])
}

// civil checks a date and an "hh:mm:ss" time of day and returns Unix ms.
// A negative argument means its field did not parse.
func civil(year, month, day int, clock string) (int64, bool) {
	if len(clock) != 8 || clock[2] != ':' || clock[5] != ':' {
		return 0, false
	}
	h, m, sec := num(clock[0:2]), num(clock[3:5]), num(clock[6:8])
	if year < 0 || month < 1 || day < 1 || day > daysIn(year, month) ||
		h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 59 {
		return 0, false
	}
	secs := daysFromCivil(year, month, day)*86400 + int64(h*3600+m*60+sec)
	return secs * 1000, true
}

// daysFromCivil is the number of days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12 // March = 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// num reads a fixed-width run of digits; -1 if any byte is not a digit.
func num(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

const months = "JanFebMarAprMayJunJulAugSepOctNovDec"

// month returns 1-12, or -1.
func month(s string) int {
	for i := 0; i+3 <= len(months); i += 3 {
		if months[i:i+3] == s {
			return i/3 + 1
		}
	}
	return -1
}

var longWeekdays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

func weekday(s string) int {
	for i, w := range longWeekdays {
		if w[:3] == s {
			return i
		}
	}
	return -1
}

func longWeekday(s string) int {
	for i, w := range longWeekdays {
		if w == s {
			return i
		}
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// trim drops the optional whitespace (SP, HTAB) around a field value.
func trim(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
