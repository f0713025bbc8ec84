"""Extraction quality on a labelled set (a benchmark, not a test): per family, per language and
overall recall, clean rate, polarity kept and updates correct.

    .venv/bin/python scripts/eval_extraction.py               # tests/datasets/extraction_set.json
    .venv/bin/python scripts/eval_extraction.py --failures    # list what was missed or leaked
    .venv/bin/python scripts/eval_extraction.py --json

- recall: expected facts found (an extracted fact of the expected family whose content contains
  every expected substring, case-insensitive);
- clean rate: messages that state no fact about the user and create nothing;
- polarity kept: found facts whose polarity is the expected one;
- updates correct: sequences replayed in order with the store's supersession rule (a fact
  upserts on its key, then supersedes every other live fact with the same subject, exactly as
  `memories.supersede` does) whose final live facts hold the new value (a substring) and none
  of the stale ones (whole contents).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtap.engine.extraction.extract import extract_facts
from memtap.engine.types import ExtractedFact

DEFAULT_SET = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "datasets"
    / "extraction_set.json"
)


@dataclass(slots=True)
class Tally:
    hits: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.hits += ok

    @property
    def rate(self) -> float | None:
        return round(self.hits / self.total, 3) if self.total else None


@dataclass(slots=True)
class Report:
    recall: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    polarity: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    clean: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    updates: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    failures: list[str] = field(default_factory=list)


def matches(fact: ExtractedFact, expected: dict[str, Any]) -> bool:
    content = fact.content.casefold()
    return fact.family == expected["family"] and all(
        h.casefold() in content for h in expected["has"]
    )


def show(facts: list[ExtractedFact]) -> str:
    return (
        "; ".join(
            f"{f.family}{'-' if f.polarity == 'negative' else '+'} {f.content!r}"
            for f in facts
        )
        or "nothing"
    )


def score_facts(data: dict[str, Any], report: Report) -> None:
    for item in data["facts"]:
        facts = extract_facts(item["text"], "user")
        for expected in item["expect"]:
            found = next((f for f in facts if matches(f, expected)), None)
            for key in ("all", expected["family"], f"lang:{item['lang']}"):
                report.recall[key].add(found is not None)
            if found is None:
                report.failures.append(
                    f"MISS {item['id']} [{item['lang']}] {expected['family']} {expected['has']}: "
                    f"{item['text']!r} -> {show(facts)}"
                )
                continue
            ok = found.polarity == expected["polarity"]
            for key in ("all", expected["family"], f"lang:{item['lang']}"):
                report.polarity[key].add(ok)
            if not ok:
                report.failures.append(
                    f"POLARITY {item['id']}: {item['text']!r} -> {show(facts)}"
                )


def score_non_facts(data: dict[str, Any], report: Report) -> None:
    for item in data["non_facts"]:
        facts = extract_facts(item["text"], "user")
        for key in ("all", item["kind"], f"lang:{item['lang']}"):
            report.clean[key].add(not facts)
        if facts:
            report.failures.append(
                f"LEAK {item['id']} [{item['lang']}] {item['kind']}: {item['text']!r} -> {show(facts)}"
            )


def replay(messages: list[str]) -> list[ExtractedFact]:
    """Live facts after the messages, with the store's upsert-by-key and supersede-by-subject."""
    live: dict[str, ExtractedFact] = {}
    for text in messages:
        for fact in extract_facts(text, "user"):
            live.pop(fact.key, None)
            for key in [k for k, old in live.items() if old.subject == fact.subject]:
                del live[key]
            live[fact.key] = fact
    return list(live.values())


def score_sequences(data: dict[str, Any], report: Report) -> None:
    for item in data["sequences"]:
        live = replay(item["messages"])
        contents = [f.content.casefold() for f in live]
        final_ok = item["final"] is None or any(
            item["final"].casefold() in c for c in contents
        )
        stale_ok = not any(s.casefold() == c for s in item["stale"] for c in contents)
        ok = final_ok and stale_ok
        kind = "restatement" if item["slot"] == "restatement" else "update"
        for key in ("all", kind, f"lang:{item['lang']}"):
            report.updates[key].add(ok)
        if not ok:
            report.failures.append(
                f"UPDATE {item['id']} [{item['lang']}] {item['slot']}: {item['messages']} -> {show(live)}"
            )


def throughput(data: dict[str, Any], seconds: float = 1.0) -> float:
    texts = [i["text"] for i in data["facts"]] + [i["text"] for i in data["non_facts"]]
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for text in texts:
            extract_facts(text, "user")
        done += len(texts)
    return done / (time.perf_counter() - started)


def figures(report: Report, data: dict[str, Any]) -> dict[str, Any]:
    def table(tallies: dict[str, Tally]) -> dict[str, Any]:
        return {k: {"rate": t.rate, "n": t.total} for k, t in sorted(tallies.items())}

    return {
        "messages": len(data["facts"])
        + len(data["non_facts"])
        + sum(len(s["messages"]) for s in data["sequences"]),
        "recall": table(report.recall),
        "clean": table(report.clean),
        "polarity": table(report.polarity),
        "updates": table(report.updates),
        "extraction_msgs_per_s": round(throughput(data)),
    }


def print_table(name: str, rows: dict[str, Any]) -> None:
    print(f"\n{name}")
    for key, row in rows.items():
        print(
            f"  {key:<22} {row['rate'] if row['rate'] is not None else '-':>6}   (n={row['n']})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--set", type=Path, default=DEFAULT_SET, help="the labelled set (JSON)"
    )
    parser.add_argument(
        "--failures",
        action="store_true",
        help="list every miss, leak and failed update",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    data = json.loads(args.set.read_text(encoding="utf-8"))
    report = Report()
    score_facts(data, report)
    score_non_facts(data, report)
    score_sequences(data, report)
    result = figures(report, data)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            f"messages: {result['messages']}   extraction: {result['extraction_msgs_per_s']} messages/s"
        )
        for name in ("recall", "clean", "polarity", "updates"):
            print_table(name, result[name])
    if args.failures:
        print("\n" + "\n".join(report.failures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
