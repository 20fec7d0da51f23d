#!/usr/bin/env python3
"""Writes testdata/zoned.txt: "area<TAB>zone<TAB>base<TAB>json-string" lines.

Structured random inputs (a date, a time, a zone and relative parts in
random order, with out-of-range field values) at random reference times in
zones with unusual rules (half-hour DST, negative DST, southern
hemisphere). Run: python3 testdata/genzoned.py > testdata/zoned.txt
"""
import json, random, sys
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 20240310)
zones = ["UTC","America/New_York","Asia/Kolkata","Australia/Adelaide","Europe/Amsterdam","Europe/London","Europe/Dublin",
 "Australia/Lord_Howe","Pacific/Chatham","America/St_Johns","Asia/Kathmandu","Africa/Casablanca","America/Santiago",
 "Pacific/Apia","America/Sao_Paulo","Asia/Tokyo","America/Los_Angeles","Pacific/Kiritimati","America/Havana"]
def num(lo, hi, pad=0):
    v = rng.randint(lo, hi)
    return str(v).zfill(pad) if pad else str(v)
def date():
    c = rng.randint(0, 9)
    y = rng.choice(["2024","2023","1999","2000","1970","1969","2038","0001","9999","24","99","70","05"])
    m = rng.choice([num(0,13,2), num(1,12)])
    d = rng.choice([num(0,32,2), num(1,31)])
    mon = rng.choice(["Jan","February","mar","Apr","May","june","Jul","aug","Sep","Sept","oct","Nov","December","III","XI"])
    if c == 0: return f"{y}-{m}-{d}"
    if c == 1: return f"{m}/{d}/{y}"
    if c == 2: return f"{d}.{m}.{y}"
    if c == 3: return f"{d} {mon} {y}"
    if c == 4: return f"{mon} {d}, {y}"
    if c == 5: return f"{mon} {d}"
    if c == 6: return f"{d}-{mon}-{y}"
    if c == 7: return f"{y}{num(0,13,2)}{num(0,32,2)}"
    if c == 8: return f"{num(1990,2030)}W{num(1,53,2)}" + rng.choice(["", "-"+num(0,7), num(0,7)])
    return f"{num(1990,2030)}.{num(1,366,3)}"
def time_():
    c = rng.randint(0, 6)
    h = num(0, 25); i = num(0, 60, 2); s = num(0, 61, 2)
    if c == 0: return f"{h}:{i}"
    if c == 1: return f"{h}:{i}:{s}"
    if c == 2: return f"{num(1,12)}{rng.choice(['am','pm',' AM',' p.m.'])}"
    if c == 3: return f"{num(1,12)}:{i}{rng.choice(['am','pm',' AM',' p.m.'])}"
    if c == 4: return f"{h}:{i}:{s}.{num(0,999999)}"
    if c == 5: return rng.choice(["noon","midnight","back of 7","front of 3pm","t1430"])
    return f"T{num(0,23,2)}{num(0,59,2)}{num(0,59,2)}"
def zone():
    return rng.choice(["UTC","Z","EST","EDT","CEST","PST","IST","+0530","-08:00","GMT+2","+01:00:30",
        "Europe/London","America/New_York","Australia/Adelaide","Asia/Kolkata","Europe/Dublin","a","y"])
def rel():
    c = rng.randint(0, 5)
    n = rng.choice(["+1","-1","2","+10","-30","0","+100","-400","1000"])
    u = rng.choice(["sec","min","hour","hours","day","days","week","fortnight","month","months","year","weekday","weekdays","ms","usec"])
    if c == 0: return f"{n} {u}"
    if c == 1: return f"{n} {u} ago"
    if c == 2: return f"{rng.choice(['next','last','this','first','third','previous'])} {rng.choice(['day','week','month','year','monday','fri','sunday','weekday','hour'])}"
    if c == 3: return f"{rng.choice(['first','last'])} day of" + rng.choice([""," next month"," last month"," jan"," +1 month"])
    if c == 4: return f"{rng.choice(['first','second','last','fifth'])} {rng.choice(['monday','sat','sunday'])} of" + rng.choice([""," next month"," march 2024"])
    return rng.choice(["tomorrow","yesterday","today","now","monday","sat","this week","next week","sunday last week"])
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1500):
    parts = []
    if rng.random() < 0.6: parts.append(date())
    if rng.random() < 0.6: parts.append(time_())
    if rng.random() < 0.3: parts.append(zone())
    for _ in range(rng.randint(0, 2)): parts.append(rel())
    rng.shuffle(parts) if rng.random() < 0.3 else None
    s = " ".join(parts) or "now"
    base = rng.choice([rng.randint(-2000000000, 4000000000), rng.randint(1700000000, 1800000000)])
    print("structured\t" + rng.choice(zones) + "\t" + str(base) + "\t" + json.dumps(s))

# Far-future instants, where timelib evaluates the zone's POSIX rule itself
# (with its C int truncation of the year for the weekday computation).
far = ["1000000000000 fortnight", "9999999999999 weekday", "+9999999999999 days", "+999999999999 days",
       "+99999999999 days", "5000000000000 hours", "9999999999999 months", "+9999999999999 weeks",
       "+300000000 years", "+3000000000 years", "+30000000000 years", "+9999999999999 days noon",
       "+9999999999999 days 02:30", "@9223372036854775807", "@4611686018427387904"]
for z in ["America/New_York", "Australia/Adelaide", "America/Los_Angeles", "Europe/London", "Australia/Lord_Howe"]:
    for b in [0, -1, 1577836800, 1709640000]:
        for s in far:
            print("farfuture\t" + z + "\t" + str(b) + "\t" + json.dumps(s))
