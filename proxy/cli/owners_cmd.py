"""`memtap owners erase OWNER`: GDPR erase over the admin API, printing the receipt."""

from __future__ import annotations

import argparse
import sys

from memtap.proxy.adminclient import AdminClient
from memtap.proxy.cli.client import (
    EXIT_OK,
    EXIT_USAGE,
    add_target_arguments,
    print_json,
    run_api_command,
)
from memtap.proxy.cli.memories_cmd import segment


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    owners = sub.add_parser("owners", help="per-owner operations (admin API)")
    actions = owners.add_subparsers(dest="action", required=True, metavar="ACTION")
    erase = actions.add_parser(
        "erase", help="delete every memory and trace of an owner (GDPR erase)"
    )
    add_target_arguments(erase)
    erase.add_argument(
        "owner", metavar="OWNER", help="owner id (see `memtap owner-id`)"
    )
    erase.add_argument(
        "-y",
        "--yes",
        action="store_true",
        help="do not ask for confirmation (only asked when stdin is a terminal)",
    )
    erase.set_defaults(handler=_erase)


def _confirmed(owner: str) -> bool:
    # Only a person at a terminal is asked: a script (`memtap owners erase OWNER`, the
    # documented form) already named the exact owner id, which is the confirmation.
    if not sys.stdin.isatty():
        return True
    answer = input(
        f"Erase every memory of owner {owner}? This cannot be undone. Type the owner id to confirm: "
    )
    return answer.strip() == owner


def _erase(args: argparse.Namespace) -> int:
    if not args.yes and not _confirmed(args.owner):
        return EXIT_USAGE

    async def action(client: AdminClient) -> int:
        receipt = await client.request("DELETE", f"/api/owners/{segment(args.owner)}")
        if args.json:
            print_json(receipt)
            return EXIT_OK
        removed = ", ".join(
            f"{place} {count}" for place, count in receipt["removed"].items()
        )
        print(f"erased owner {receipt['owner']}: {removed}")
        return EXIT_OK

    return run_api_command(action, args)
