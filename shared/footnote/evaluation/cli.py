"""``footnote eval retrieval|answers``: registered into the ``footnote`` command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

# Notes of five turns each: session recall@10 0.892 against 0.885 (3 turns), 0.887 (7),
# 0.885 (10) and 0.875 (whole sessions), and the best temporal F1 and answered share,
# on the public five conversations (docs/quality.md).
MEMORY_TURNS_PER_NOTE = 5


def _write(report: dict[str, Any], out: Path | None) -> None:
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def _cache_dir(args: argparse.Namespace) -> Path | None:
    from footnote.evaluation.bench import DEFAULT_CACHE_DIR

    return None if args.no_cache else (args.cache_dir or DEFAULT_CACHE_DIR)


def _retrieval(args: argparse.Namespace) -> int:
    from footnote.evaluation.bench import eval_settings
    from footnote.evaluation.config import EvaluationConfig
    from footnote.evaluation.retrieval import STRATEGIES, evaluate_retrieval, format_table

    strategies = tuple(args.strategies.split(",")) if args.strategies else STRATEGIES
    report = evaluate_retrieval(
        args.data_dir,
        args.split,
        eval_settings(),
        _cache_dir(args),
        args.limit,
        strategies,
        corpus_limit=args.corpus_limit,
        evaluation=EvaluationConfig(),
    )
    _write(report, args.json)
    print(
        f"{report['dataset']} split={args.split} queries={report['queries']} "
        f"documents={report['documents']}/{report['corpus_documents']}"
    )
    print(format_table(report))
    return 0


def _answers(args: argparse.Namespace) -> int:
    from footnote.evaluation.answers import evaluate_answers
    from footnote.evaluation.bench import eval_settings
    from footnote.evaluation.config import EvaluationConfig

    overrides = {"generator": args.generator} if args.generator else {}
    report = evaluate_answers(
        args.data_dir,
        eval_settings(**overrides),
        _cache_dir(args),
        args.limit,
        evaluation=EvaluationConfig(),
    )
    _write(report, args.json)
    print(json.dumps({k: v for k, v in report.items() if "details" not in k}, indent=2))
    return 0


def _memory(args: argparse.Namespace) -> int:
    from footnote.evaluation.bench import eval_settings
    from footnote.evaluation.config import EvaluationConfig
    from footnote.evaluation.memory import evaluate_memory

    overrides = {"generator": args.generator} if args.generator else {}
    report = evaluate_memory(
        args.data_dir,
        eval_settings(**overrides),
        _cache_dir(args),
        args.limit,
        args.turns_per_note,
        evaluation=EvaluationConfig(),
    )
    _write(report, args.json)
    print(json.dumps({k: v for k, v in report.items() if k != "details"}, indent=2))
    return 0


def _everyday(args: argparse.Namespace) -> int:
    from footnote.evaluation.bench import eval_settings
    from footnote.evaluation.config import EvaluationConfig
    from footnote.evaluation.everyday import evaluate_everyday, failures

    overrides = {"generator": args.generator} if args.generator else {}
    report = evaluate_everyday(
        args.data_dir, eval_settings(**overrides), _cache_dir(args), evaluation=EvaluationConfig()
    )
    _write(report, args.json)
    print(json.dumps({k: report[k] for k in ("overall", "kinds")}, indent=2))
    if args.show_failures:
        for d in failures(report):
            print(f"[{d['notebook']}/{d['id']} {d['kind']}] {d['question']}\n    -> {d['answer']}")
    return 0


def _grounding(args: argparse.Namespace) -> int:
    from footnote.evaluation.bench import eval_settings
    from footnote.evaluation.config import EvaluationConfig
    from footnote.evaluation.grounding import evaluate_grounding

    overrides = {"grounder": args.grounder} if args.grounder else {}
    report = evaluate_grounding(
        args.data_dir, eval_settings(**overrides), _cache_dir(args), evaluation=EvaluationConfig()
    )
    _write(report, args.json)
    print(json.dumps({k: v for k, v in report.items() if k != "details"}, indent=2))
    if args.show_failures:
        for d in report["details"]:
            if d["kept"] != d["supported"]:
                print(f"[{d['notebook']}/{d['id']} {d['why']} {d['support']}] {d['claim']}")
    return 0


def register(sub: Any) -> None:
    ev = sub.add_parser("eval", help="measure retrieval and cited answers on a benchmark folder")
    kinds = ev.add_subparsers(dest="eval_kind", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("data_dir", type=Path)
        p.add_argument("--json", type=Path, help="write the report here")
        p.add_argument(
            "--limit",
            type=int,
            help="only the first N queries (by id) or questions (per conversation)",
        )
        p.add_argument("--cache-dir", type=Path, help="disk embedding cache folder")
        p.add_argument("--no-cache", action="store_true", help="embed in memory only")

    r = kinds.add_parser("retrieval", help="BEIR layout: corpus.jsonl, queries.jsonl, qrels/")
    common(r)
    r.add_argument("--split", default="test", help="qrels/<SPLIT>.tsv")
    r.add_argument("--strategies", help="comma-separated subset of bm25,dense,weighted,rrf,default")
    r.add_argument(
        "--corpus-limit",
        type=int,
        help="index only the first N documents; score the queries they fully answer",
    )
    r.set_defaults(run=_retrieval)

    a = kinds.add_parser("answers", help="HotpotQA layout: passages.jsonl, questions.jsonl")
    common(a)
    a.add_argument("--generator", choices=["quote", "gemini"], help="default: GENERATOR")
    a.set_defaults(run=_answers)

    m = kinds.add_parser("memory", help="LoCoMo layout: one conversation *.json per tenant")
    common(m)
    m.add_argument("--generator", choices=["quote", "gemini"], help="default: GENERATOR")
    m.add_argument(
        "--turns-per-note",
        type=int,
        default=MEMORY_TURNS_PER_NOTE,
        help="turns per note (0: one note per session)",
    )
    m.set_defaults(run=_memory)

    e = kinds.add_parser(
        "everyday", help="everyday notebooks: one notebook *.json per tenant (eval/everyday)"
    )
    common(e)
    e.add_argument("--generator", choices=["quote", "gemini"], help="default: GENERATOR")
    e.add_argument("--show-failures", action="store_true", help="print each wrong answer")
    e.set_defaults(run=_everyday)

    g = kinds.add_parser(
        "grounding",
        help="claims checked against the notes they cite: everyday notebooks with claims",
    )
    common(g)
    g.add_argument("--grounder", choices=["local", "vertex"], help="default: GROUNDER")
    g.add_argument("--show-failures", action="store_true", help="print each wrong verdict")
    g.set_defaults(run=_grounding)
