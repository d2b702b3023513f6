#!/usr/bin/env python3
"""Joins partkit's and Porcupine's per-history TSVs of one pass (run.sh) and prints, per corpus
and validity: sums of per-history medians (partkit verdict, partkit check, Porcupine), the
distribution of the per-history ratio partkit verdict / Porcupine (max, median; and the same
for partkit's whole check, evidence included), and how many
histories miss issue 9's bar (ratio > 0.5). Last column: the median of partkit's last warm-up
rounds over that of its measured rounds (CompareTiming's comment line for the corpus); near 1
means the measured rounds are on the JIT's plateau, well above 1 that the warm-up was too short
for this machine.

usage: compare.py OUT_DIR PASS [PASS ...]"""
import re
import statistics
import sys


def settled(path, corpus):
    """The median of the last warm-up rounds over that of the measured rounds, from
    CompareTiming's comment line for this corpus; None when the file has no such line."""
    for line in open(path):
        if line.startswith(f"# {corpus}, rounds in ms"):
            warm = re.search(r"warm-up median ([0-9.]+)", line)
            measured = re.search(r"measured min [0-9.]+ median ([0-9.]+)", line)
            if warm and measured:
                return float(warm.group(1)) / float(measured.group(1))
    return None


def read(path):
    rows, header = {}, None
    for line in open(path):
        if line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if header is None:
            header = cols
            continue
        r = dict(zip(header, cols))
        rows[(r["corpus"], r["name"])] = r
    return rows


def main():
    out, passes = sys.argv[1], sys.argv[2:]
    print("| pass | corpus | kind | n | partkit verdict, sum ms | partkit check, sum ms | Porcupine, sum ms "
          "| sum ratio | per-history ratio max | median | > 0.5 | worst history | check ratio max | check > 0.5 "
          "| last warm-up / measured |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in passes:
        for corpus in ("small", "etcd", "scale"):
            try:
                a = read(f"{out}/partkit-{corpus}-{p}.tsv")
                b = read(f"{out}/porcupine-{corpus}-{p}.tsv")
            except FileNotFoundError:
                continue
            plateau = settled(f"{out}/partkit-{corpus}-{p}.tsv", corpus)
            plateau = "?" if plateau is None else f"{plateau:.2f}"
            for kind in ("valid", "invalid", "all"):
                keys = [k for k in a if kind == "all" or a[k]["expected"] == kind]
                if not keys:
                    continue
                missing = [k for k in keys if k not in b]
                if missing:
                    raise SystemExit(f"not in Porcupine's run: {missing[:3]}")
                ver = sum(int(a[k]["verdict_median_ns"]) for k in keys) / 1e6
                chk = sum(int(a[k]["median_ns"]) for k in keys) / 1e6
                por = sum(int(b[k]["median_ns"]) for k in keys) / 1e6
                ratios = {k: int(a[k]["verdict_median_ns"]) / int(b[k]["median_ns"]) for k in keys}
                worst = max(ratios, key=ratios.get)
                over = sum(1 for r in ratios.values() if r > 0.5)
                cr = [int(a[k]["median_ns"]) / int(b[k]["median_ns"]) for k in keys]
                print(f"| {p} | {corpus} | {kind} | {len(keys)} | {ver:.2f} | {chk:.2f} | {por:.2f} | {ver / por:.2f} "
                      f"| {ratios[worst]:.2f} | {statistics.median(ratios.values()):.2f} | {over} "
                      f"| {worst[1]} ({int(a[worst]['verdict_median_ns']) / 1e3:.0f} us vs "
                      f"{int(b[worst]['median_ns']) / 1e3:.0f} us) | {max(cr):.2f} | {sum(1 for r in cr if r > 0.5)} "
                      f"| {plateau} |")


if __name__ == "__main__":
    main()
