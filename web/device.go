package web

import "strings"

// deviceName names a client from its user agent for the session list, as "Chrome on
// macOS": the browser and the system, or what the agent says when neither is known.
func deviceName(ua string) string {
	if ua == "" {
		return "Unknown device"
	}
	browser := firstMatch(ua, []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"Chromium/", "Chromium"},
		{"HeadlessChrome/", "Chrome"}, {"Chrome/", "Chrome"}, {"CriOS/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"},
	})
	system := firstMatch(ua, []struct{ token, name string }{
		{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
		{"Mac OS X", "macOS"}, {"Windows", "Windows"}, {"Linux", "Linux"},
	})
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return system
	}
	if r := []rune(ua); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return ua
}

// firstMatch returns the name of the first token found in s, or "".
func firstMatch(s string, known []struct{ token, name string }) string {
	for _, k := range known {
		if strings.Contains(s, k.token) {
			return k.name
		}
	}
	return ""
}
