"""ncu --csv (stdin, mixed with the CLI's own output): per-kernel device time of the
launches of the last STEPS steps (the last STEPS/TOTAL of the launches after the first
step's), summed per step and by kernel name."""
import collections, csv, sys

steps, total = int(sys.argv[1]), int(sys.argv[2])
rows = [r for r in csv.reader(l for l in sys.stdin if l.startswith('"')) if len(r) > 10]
header, rows = rows[0], rows[1:]
name_at, value_at = header.index("Kernel Name"), header.index("Metric Value")
values = [(r[name_at], float(r[value_at].replace(",", ""))) for r in rows]
tail = values[len(values) - len(values) * steps // total:]
count, time = collections.Counter(), collections.Counter()
for name, ns in tail:
    key = name.split("(")[0].split("<")[0].split("::")[-1]
    count[key] += 1
    time[key] += ns
parts = "; ".join(f"{k} {time[k] / 1000 / steps:.1f}" for k in sorted(time, key=lambda k: -time[k])[:8])
print(f"{sum(ns for _, ns in tail) / 1000 / steps:.1f} us/step in kernels, {len(tail) / steps:.1f} launches/step: {parts}")
