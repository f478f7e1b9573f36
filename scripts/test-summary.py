#!/usr/bin/python3
"""Reads meson's test logs and prints one line per failure, the skips, and last: N passed, N failed."""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--extra-passed", type=int, default=0)
    ap.add_argument("--extra-failed", type=int, default=0)
    args = ap.parse_args()
    passed, failed, skipped = args.extra_passed, args.extra_failed, 0
    for path in args.logs:
        build = path.split("/")[0]
        try:
            with open(path) as f:
                lines = [json.loads(l) for l in f if l.strip()]
        except (OSError, ValueError) as e:
            print(f"FAILED: {path}: {e}")
            failed += 1
            continue
        for t in lines:
            result = t.get("result")
            name = f"{build}: {t.get('name')}"
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
                print(f"skipped: {name}")
            else:
                failed += 1
                print(f"FAILED ({result}): {name}")
    if skipped:
        print(f"{skipped} skipped (each says why in its log)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
