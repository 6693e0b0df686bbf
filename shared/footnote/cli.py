"""The ``footnote`` command: run the local stack, import, re-index, evaluate."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import textwrap
import threading
from typing import TextIO


def _dev(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from footnote.dev.demo import DEMO_EMAIL, DEMO_PASSWORD, DEMO_QUESTION, DemoClient
    from footnote.dev.persistence import DEFAULT_DATA_DIR, DataDir
    from footnote.dev.prerequisites import Ports, PrerequisiteMissing
    from footnote.dev.stack import Stack
    from footnote.services.imports import sweep_message as import_sweep_message

    folder = Path(args.data_dir).resolve() if args.data_dir else DEFAULT_DATA_DIR
    data = None if args.in_memory else DataDir(folder)
    stack = Stack(
        Ports(
            args.firestore_port,
            args.pubsub_port,
            args.auth_port,
            args.port,
            args.hosting_port,
            args.web_port,
            args.hub_port,
            args.storage_port,
        ),
        data=data,
        snapshot_interval=args.snapshot_every,
    )
    stopping = threading.Event()

    def stop(*_: object) -> None:
        stopping.set()

    # SIGHUP: the terminal went away. Stopping never depends on stdout: with
    # `make dev | tee dev.log`, Ctrl-C kills tee first and every later print fails.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    # Ctrl-C, also when started in the background of a script (which starts it with
    # SIGINT ignored, and Python then never raises KeyboardInterrupt).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if data is not None and args.reset:
            data.reset()
            print(f"Reset: deleted the local data in {data.root}.", flush=True)
        restored = data is not None and data.has_data()
        print(
            "Starting Firestore, Pub/Sub and Auth emulators, Cloud Storage, the functions and the web client"
            + (f" (with the data kept in {data.root})…" if restored and data else "…"),
            flush=True,
        )
        stack.start(with_web=True)
        env = stack.client_env()
        client = DemoClient(stack.api_url, env["FIREBASE_AUTH_EMULATOR_HOST"], stack.project)
        token = client.sign_up(DEMO_EMAIL, DEMO_PASSWORD)  # signs in if the account exists
        if restored:
            # Indexing that was under way at the last stop: its events died with the
            # emulator. One sweep re-indexes every note still pending or failed.
            stack.publish(
                os.environ.get("REINDEX_TOPIC", "footnote-reindex"),
                {"scope": "unindexed", "jobId": f"dev-restart-{int(time.time())}"},
            )
            # Imports that were running: their messages died with the Pub/Sub emulator,
            # and no run of before is alive. They resume at their cursors.
            stack.publish(
                os.environ.get("ACCOUNTS_TOPIC", "footnote-accounts"),
                import_sweep_message(stalled_after_s=0),
            )
        if not args.no_demo:
            added = client.seed_demo(token)
            if added:
                print("Loading demo notes…", flush=True)
                client.wait_indexed(token, added)
            else:
                print("The demo notes are already in the demo account: none added.", flush=True)
            # At every start: the first question, answered by a warm stack.
            started = time.perf_counter()
            asked = client.call("POST", "/chat", token, json={"message": DEMO_QUESTION})
            answer = asked.json()
            took = time.perf_counter() - started
            print(f"\nQ: {DEMO_QUESTION}\nA: {answer['answer']}")
            for c in answer["citations"]:
                print(f"   [{c['cid']}] note {c['noteId']}: {c['snippet'][:90]}")
            print(
                f"   strategy={answer['meta']['retrieval']['strategy']} "
                f"confidence={answer['meta']['confidence']} answered in {took:.2f} s"
            )
        kept = (
            f"Data is kept in {data.root} (saved every {args.snapshot_every:g} s and at Ctrl-C);\n"
            "  'make dev-reset' (footnote dev --reset) starts again from nothing."
            if data is not None
            else "Data is in memory only (--in-memory): it is gone when this stops."
        )
        print(
            textwrap.dedent(f"""
            Footnote is running (logs in {stack.log_dir}):
              Web client     {stack.web_url}   (sign in as {DEMO_EMAIL} / {DEMO_PASSWORD}, or create an account)
              Hosting        http://127.0.0.1:{stack.ports.hosting}   (the built web/dist with firebase.json's headers)
              API            {stack.api_url}   (GET /healthz, /notes, POST /chat, /search)
              Firestore      http://{env["FIRESTORE_EMULATOR_HOST"]}
              Pub/Sub        http://{env["PUBSUB_EMULATOR_HOST"]}
              Auth           http://{env["FIREBASE_AUTH_EMULATOR_HOST"]}
              Cloud Storage  {env["STORAGE_EMULATOR_HOST"]}   (bucket {stack.bucket}: uploads and exports)
            {{kept}}
            Try it (the demo account's ID token, valid for an hour):
              export TOKEN={token}
              curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
                   -d '{{"message": "What did investors say?"}}' {stack.api_url}/chat
            Press Ctrl-C to stop everything.""")
            .rstrip()
            .replace("{kept}", kept),
            flush=True,
        )
        warned = None
        while not stopping.wait(1):
            for name in ("firestore", "pubsub", "auth", "storage", "functions", "hosting", "web"):
                if not stack.alive(name):
                    _say(f"{name} stopped unexpectedly:\n{stack.log_tail(name)}", sys.stderr)
                    stack.keep_logs = True  # to look into; a clean stop removes them
                    return 1
            error = stack.snapshot_error()
            if error and error != warned:
                _say(f"footnote dev: saving the data failed (will retry): {error}", sys.stderr)
            warned = error
        return 0
    except PrerequisiteMissing as exc:  # also PortTaken, DataDirBusy
        _say(f"footnote dev: {exc}", sys.stderr)
        return 2
    except (KeyboardInterrupt, BrokenPipeError):
        return 0
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut it short
        try:
            _say("\nSaving and stopping…" if data is not None else "\nStopping…")
        finally:
            failure = stack.stop()
        if failure:
            _say(f"footnote dev: the last save failed ({failure}); kept the one before.")
        if stack.keep_logs:
            _say(f"The logs are kept in {stack.log_dir}.")
        _say("Stopped.")


def _say(text: str, stream: TextIO | None = None) -> None:
    """Print, unless the reader is gone (a closed pipe must not stop the shutdown)."""
    out = stream or sys.stdout
    try:
        print(text, file=out, flush=True)
    except (BrokenPipeError, OSError, ValueError):
        # Point the dead stream at /dev/null so the interpreter's exit flush is quiet.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
        except (OSError, ValueError):
            pass


def _reindex(args: argparse.Namespace) -> int:
    from footnote.services.reindexing import parse_request
    from footnote.wiring import container

    request = parse_request(
        {"scope": args.scope, "noteId": args.note, "tenantId": args.tenant, "force": args.force}
        | ({"jobId": args.job} if args.job else {})
    )
    job_id = container().reindexing.start(request)
    print(json.dumps({"jobId": job_id}))
    return 0


def _import(args: argparse.Namespace) -> int:
    """Import an archive into an account of the running local stack, following the
    job with a one-line progress report."""
    import time
    from pathlib import Path

    import requests

    from footnote.dev.demo import DEMO_PASSWORD, DemoClient

    path = Path(args.path)
    if not path.is_file():
        print(f"no such file: {path}", file=sys.stderr)
        return 2
    client = DemoClient(args.api, args.auth, args.project)
    token = client.sign_up(args.user, args.password or DEMO_PASSWORD)
    # Straight to Cloud Storage (any size the readers take), through the upload URL
    # the API hands out; a stack without Cloud Storage takes the archive as the body.
    size = path.stat().st_size
    session = client.call("POST", "/uploads", token, json={"name": path.name, "size": size})
    if session.status_code == 201:
        upload = session.json()
        with path.open("rb") as body:
            put = requests.put(
                upload["uploadUrl"], data=body, headers={"Content-Length": str(size)}, timeout=600
            )
        if not put.ok:
            print(f"the upload failed: {put.status_code} {put.text[:300]}", file=sys.stderr)
            return 1
        started = client.call("POST", "/imports", token, json={"object": upload["object"]})
    else:
        with path.open("rb") as body:
            started = client.call(
                "POST", "/imports", token, params={"name": path.name}, data=body,
                headers={"Content-Type": "application/octet-stream"},
            )  # fmt: skip
    if started.status_code != 202:
        print(f"the import could not start: {started.text}", file=sys.stderr)
        return 1
    job = started.json()
    while job["status"] in ("queued", "running"):
        print(
            f"\r{job['status']}: {job['imported']} imported, {job['duplicates']} already "
            f"there, {job['failed']} failed",
            end="", file=sys.stderr, flush=True,
        )  # fmt: skip
        time.sleep(1)
        job = client.call("GET", f"/imports/{job['id']}", token).json()
    print(file=sys.stderr)
    print(json.dumps(job, indent=2))
    return 0 if job["status"] == "done" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="footnote", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    dev = sub.add_parser("dev", help="run the whole stack locally with demo notes")
    dev.add_argument("--port", type=int, default=8080, help="functions host (API) port")
    dev.add_argument("--firestore-port", type=int, default=8085)
    dev.add_argument("--pubsub-port", type=int, default=8086)
    dev.add_argument("--auth-port", type=int, default=9099)
    dev.add_argument("--hosting-port", type=int, default=5002, help="Hosting emulator port")
    dev.add_argument("--web-port", type=int, default=5080, help="web client (local origin) port")
    dev.add_argument("--hub-port", type=int, default=9098, help="Auth emulator's hub port")
    dev.add_argument(
        "--storage-port",
        type=int,
        default=9199,
        help="Cloud Storage server port (uploads, exports)",
    )
    dev.add_argument("--no-demo", action="store_true", help="skip loading demo notes")
    dev.add_argument(
        "--data-dir",
        help="where notes and accounts are kept across restarts (default: .footnote-data/)",
    )
    dev.add_argument(
        "--reset", action="store_true", help="delete the kept data first: start from nothing"
    )
    dev.add_argument(
        "--in-memory", action="store_true", help="keep nothing: all data is gone at the stop"
    )
    dev.add_argument(
        "--snapshot-every", type=float, default=30, help="seconds between saves of the data"
    )
    dev.set_defaults(run=_dev)

    reindex = sub.add_parser("reindex", help="publish a re-index request")
    reindex.add_argument("scope", choices=["note", "tenant", "all", "unindexed"])
    reindex.add_argument("--note")
    reindex.add_argument("--tenant")
    reindex.add_argument("--job")
    reindex.add_argument("--force", action="store_true")
    reindex.set_defaults(run=_reindex)

    importer = sub.add_parser(
        "import", help="import an archive (Obsidian, Evernote, Keep, Notion, Footnote) locally"
    )
    importer.add_argument("path", help="the exported file: a .zip, .enex or .md")
    importer.add_argument("--user", required=True, help="the account's email (created if new)")
    importer.add_argument("--password", help="the account's password (default: the demo's)")
    importer.add_argument("--api", default="http://127.0.0.1:8080", help="the stack's API")
    importer.add_argument("--auth", default="127.0.0.1:9099", help="the Auth emulator")
    importer.add_argument("--project", default="demo-footnote")
    importer.set_defaults(run=_import)

    from footnote.evaluation.cli import register as register_eval

    register_eval(sub)

    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
