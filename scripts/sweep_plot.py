#!/usr/bin/env python3
"""One measure of a weft sweep across one axis, a line per value of another (optional) axis.

    scripts/sweep_plot.py DIR/summary.csv X Y [--by AXIS] [--logx] [--out FILE.png]

X and AXIS are column names of the summary (the sweep's paths), Y a measure (energy, sag,
max_strain, ...). Reads the CSV with the standard library; draws with matplotlib (Debian:
python3-matplotlib). Blown-up variants are drawn as crosses.
"""
import argparse
import csv
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary")
    parser.add_argument("x")
    parser.add_argument("y")
    parser.add_argument("--by", help="one line per value of this column")
    parser.add_argument("--logx", action="store_true", help="logarithmic x axis")
    parser.add_argument("--out", default="sweep.png")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("sweep_plot.py: needs matplotlib (Debian: apt-get install python3-matplotlib)")
    with open(args.summary, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{args.summary}: no variants")
    for column in [args.x, args.y] + ([args.by] if args.by else []):
        if column not in rows[0]:
            sys.exit(f"{args.summary}: no column '{column}' (columns: {', '.join(rows[0].keys())})")
    groups = {}
    for row in rows:
        groups.setdefault(row[args.by] if args.by else "", []).append(row)
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    for key, members in groups.items():
        members.sort(key=lambda r: float(r[args.x]))
        xs = [float(r[args.x]) for r in members]
        ys = [float(r[args.y]) for r in members]
        label = f"{args.by} = {key}" if args.by else None
        (line,) = ax.plot(xs, ys, marker="o", markersize=3, label=label)
        blown = [(x, y) for x, y, r in zip(xs, ys, members) if r["status"] != "ok"]
        if blown:
            ax.plot(*zip(*blown), "x", color=line.get_color(), markersize=8)
    if args.logx:
        ax.set_xscale("log")
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    ax.grid(True, alpha=0.3)
    if args.by:
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"{args.out}: {args.y} over {args.x}, {len(rows)} variants")


if __name__ == "__main__":
    main()
