"""`memtap ca path|regenerate [-c FILE] [--data-dir DIR]`: memtap's TLS interception CA.

`path` prints the CA certificate's path (creating the CA on first use), ready for
`SSL_CERT_FILE=$(memtap ca path)` or `NODE_EXTRA_CA_CERTS`. `regenerate` replaces the CA and
drops every cached leaf certificate; clients must trust the new certificate, and a running
memtap must be restarted to use it. Exit 1 on an invalid configuration.
"""

from __future__ import annotations

import argparse
import json
import sys

from memtap.config.loader import ConfigError, load_config
from memtap.proxy.modes.certs import CertificateAuthority, ca_cert_path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "ca",
        help="the TLS interception CA (forward proxy mode)",
        description="Manage the CA memtap signs intercepted hosts' certificates with.",
    )
    actions = parser.add_subparsers(dest="ca_action", required=True, metavar="ACTION")
    path = actions.add_parser(
        "path", help="print the CA certificate path (created on first use)"
    )
    regenerate = actions.add_parser(
        "regenerate", help="replace the CA (clients must trust the new one)"
    )
    for action in (path, regenerate):
        action.add_argument(
            "-c",
            "--config",
            metavar="FILE",
            default=None,
            help="config file (default: config/memtap.yaml if present)",
        )
        action.add_argument(
            "--data-dir", metavar="DIR", help="data directory (overrides the config)"
        )
        action.add_argument(
            "--json", action="store_true", help="print a JSON object instead of text"
        )
    path.set_defaults(handler=run_path)
    regenerate.set_defaults(handler=run_regenerate)


def _data_dir(args: argparse.Namespace) -> str | None:
    overrides = {"data_dir": args.data_dir} if args.data_dir else None
    try:
        return load_config(args.config, overrides).data_dir
    except ConfigError as exc:
        for issue in exc.errors:
            print(issue, file=sys.stderr)
        return None


def _print(args: argparse.Namespace, ca: CertificateAuthority, created: bool) -> None:
    if args.json:
        out = {
            "path": str(ca.cert_path.resolve()),
            "sha256": ca.fingerprint,
            "not_after": ca.cert.not_valid_after_utc.isoformat(),
            "created": created,
        }
        print(json.dumps(out))
    else:
        print(ca.cert_path.resolve())


def run_path(args: argparse.Namespace) -> int:
    data_dir = _data_dir(args)
    if data_dir is None:
        return 1
    existed = ca_cert_path(data_dir).exists()
    _print(args, CertificateAuthority.load_or_create(data_dir), created=not existed)
    return 0


def run_regenerate(args: argparse.Namespace) -> int:
    data_dir = _data_dir(args)
    if data_dir is None:
        return 1
    ca = CertificateAuthority.create(data_dir)
    _print(args, ca, created=True)
    if not args.json:
        print(
            "new CA created: clients must trust it, and a running memtap must be restarted",
            file=sys.stderr,
        )
    return 0
