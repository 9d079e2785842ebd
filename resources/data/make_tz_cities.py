#!/usr/bin/env python3
"""resources/data/tz-cities.csv from Debian's tzdata (public domain): the principal
location of every time zone in /usr/share/zoneinfo/zone1970.tab, as
zone,latitude,longitude in decimal degrees (ISO 6709 ±DDMM[SS]±DDDMM[SS] converted).
Usage: resources/data/make_tz_cities.py [zone1970.tab] > resources/data/tz-cities.csv"""
import re
import sys


def degrees(sign, whole, minutes, seconds):
    value = int(whole) + int(minutes) / 60 + (int(seconds) / 3600 if seconds else 0)
    return -value if sign == "-" else value


source = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/zoneinfo/zone1970.tab"
coordinate = re.compile(r"^([+-])(\d{2})(\d{2})(\d{2})?([+-])(\d{3})(\d{2})(\d{2})?$")
print("# The principal location of each time zone, from tzdata's zone1970.tab (public domain),")
print("# made by resources/data/make_tz_cities.py.")
print("zone,latitude,longitude")
with open(source, encoding="utf-8") as table:
    for line in table:
        if line.startswith("#") or not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        match = coordinate.match(fields[1])
        if not match:
            sys.exit(f"{source}: cannot read the coordinates '{fields[1]}'")
        lat = degrees(match[1], match[2], match[3], match[4])
        lon = degrees(match[5], match[6], match[7], match[8])
        print(f"{fields[2]},{lat:.4f},{lon:.4f}")
