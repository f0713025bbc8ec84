"""Logs: JSON/text format, the request.done fields, and no secret in any line."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import threading
import time
from collections.abc import Iterator

import aiohttp
import pytest

from memtap.proxy.logs import (
    BatchingHandler,
    JsonFormatter,
    TextFormatter,
    configure_logging,
    log_fields,
    redact,
)
from memtap.proxy.logs.redact import _TRIGGERS, _may_hold_secret

SECRET = "sk-test-SECRET-9f8e7d6c5b4a"
GOOGLE_SECRET = "AIzaTestSecretValue-0123456789abcdef"
QUERY_SECRET = "query-secret-4242"
OPAQUE_SECRET = (
    "opaque-tok-77aa88bb"  # no provider shape: only its header name gives it away
)


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {OPAQUE_SECRET}",
        f'{{"authorization":"Bearer {OPAQUE_SECRET}"}}',
        f"<CIMultiDict('Host': 'x', 'x-api-key': '{OPAQUE_SECRET}')>",
        f"[('X-Goog-Api-Key', '{OPAQUE_SECRET}')]",
        f"GET https://generativelanguage.googleapis.com/v1beta/models?alt=sse&key={OPAQUE_SECRET} failed",
        f"headers={{'Proxy-Authorization': 'Basic {OPAQUE_SECRET}'}}",
        f"token was {SECRET} in a message",
        f"bearer {OPAQUE_SECRET}",
        f"api_key={OPAQUE_SECRET}",
        f"admin_token: {OPAQUE_SECRET}",
        f'{{"ADMIN-TOKEN": "{OPAQUE_SECRET}"}}',
        f"adminToken={OPAQUE_SECRET}",
        # The patterns ignore case the Unicode way: Turkish dotted and dotless i are "i".
        f"ADMİN_TOKEN: {OPAQUE_SECRET}",
        f"admın_token: {OPAQUE_SECRET}",
        f"AUTHORİZATİON: Basic {OPAQUE_SECRET}",
        f"authorızation: Basic {OPAQUE_SECRET}",
        f"authorızation: {OPAQUE_SECRET}",
        # Environment and config dumps: a name that ends in a secret's name, after a dot
        # or a slash, in a tuple, or with a bare comma.
        f"[('OPENAI_API_KEY', '{OPAQUE_SECRET}')]",
        f"('MEMTAP_ADMIN_TOKEN', '{OPAQUE_SECRET}')",
        f"('HTTP_X_API_KEY', '{OPAQUE_SECRET}')",
        f'"openai_api_key","{OPAQUE_SECRET}"',
        f"api_key,{OPAQUE_SECRET}",
        f"x-api-key, {OPAQUE_SECRET}",
        f"config.api_key={OPAQUE_SECRET}",
        f"self.api_key: {OPAQUE_SECRET}",
        f'settings.admin_token = "{OPAQUE_SECRET}"',
        f"env/API_KEY={OPAQUE_SECRET}",
    ],
)
def test_redact_removes_credentials(text):
    cleaned = redact(text)
    assert OPAQUE_SECRET not in cleaned and SECRET not in cleaned
    assert "[REDACTED]" in cleaned


def test_memory_lines_skip_the_secret_patterns():
    """Every memory line has a `tokens` field: it is no trace of a secret (the patterns ran
    on every such line, 3 % of a memory request's CPU)."""
    line = '{"event": "memory.injected", "tokens": 42, "injected_tokens": 42}'
    assert not _may_hold_secret(line)
    assert _may_hold_secret('{"admin_token": "x"}')
    assert _may_hold_secret('{"ADMİN_TOKEN": "x"}')
    assert all(_may_hold_secret(trigger) for trigger in _TRIGGERS)


def test_redact_leaves_ordinary_text_alone():
    text = "request.done path=/v1/chat/completions owner=ab12cd34ef56ab12cd34ef56 status=200"
    assert redact(text) == text


@pytest.mark.parametrize(
    "line",
    [
        # A path that ends in a secret's name: the next field's name stays (request.done
        # must carry `upstream`).
        '{"event":"request.done","path":"/v1/admin/api_key","upstream":"openai","status":200}',
        # A value that ends in one: "no_api_key" is a reason, not a name.
        '{"skipped_reason":"no_api_key","upstream_request_id":"req_standin"}',
    ],
)
def test_a_value_that_ends_in_a_secrets_name_redacts_nothing(line: str) -> None:
    assert redact(line) == line


def _record(
    msg: str, fields: dict[str, object], exc: BaseException | None = None
) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    record = logging.LogRecord(
        "memtap.test", logging.WARNING, __file__, 1, msg, None, exc_info
    )
    record.fields = fields
    return record


def test_json_formatter_shape_and_exception_redaction():
    try:
        raise ValueError(f"upstream said no to Authorization: Bearer {OPAQUE_SECRET}")
    except ValueError as exc:
        line = JsonFormatter().format(
            _record("request.done", {"status": 502, "owner": "abc"}, exc)
        )
    payload = json.loads(line)
    assert payload["event"] == "request.done"
    assert payload["level"] == "warning"
    assert payload["ts"].endswith("Z") and "T" in payload["ts"]
    assert payload["status"] == 502 and payload["owner"] == "abc"
    assert "ValueError" in payload["exc"]
    assert OPAQUE_SECRET not in line
    assert "\n" not in line


def test_a_field_never_overrides_the_base_keys():
    line = JsonFormatter().format(
        _record("request.done", {"status": 200, "event": "forged", "ts": "then"})
    )
    payload = json.loads(line)
    assert payload["event"] == "request.done" and payload["ts"] != "then"
    assert list(payload)[:4] == ["ts", "level", "event", "logger"]
    assert payload["status"] == 200


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_log_fields_makes_the_record_logger_log_makes():
    """The request.done fast path: same handlers, level, filters and record contents as
    `logger.log(level, event, extra={"fields": ...})`, a fresh time and fields per call."""
    logger = logging.getLogger("memtap.test.fast")
    keep = _Keep()
    logger.addHandler(keep)
    logger.setLevel(logging.INFO)
    try:
        logger.log(logging.INFO, "request.done", extra={"fields": {"n": 0}})
        log_fields(logger, logging.INFO, "request.done", {"n": 1})
        time.sleep(0.002)
        log_fields(logger, logging.WARNING, "request.done", {"n": 2})
        log_fields(logger, logging.DEBUG, "request.done", {"n": 3})  # below the level
        keep.addFilter(lambda record: record.fields["n"] != 4)
        log_fields(logger, logging.INFO, "request.done", {"n": 4})  # filtered out
        logger.disabled = True
        log_fields(logger, logging.INFO, "request.done", {"n": 5})
    finally:
        logger.disabled = False
        logger.removeHandler(keep)
        logger.setLevel(logging.NOTSET)
    slow, *fast = keep.records
    assert [r.fields["n"] for r in fast] == [1, 2]
    assert [r.levelname for r in fast] == ["INFO", "WARNING"]
    for record in fast:
        assert record.name == slow.name and record.getMessage() == "request.done"
        assert record.exc_info is None and record.exc_text is None
        assert set(vars(record)) == set(vars(slow))
        assert 0 <= record.created - slow.created < 5
        assert record.msecs == int((record.created % 1) * 1000)
        assert record.relativeCreated >= slow.relativeCreated
    assert fast[1].created > fast[0].created


@contextlib.contextmanager
def _isolated(name: str, handler: logging.Handler) -> Iterator[logging.Logger]:
    """A logger whose only handler is `handler` (closed, with the logger's filters
    cleared, on the way out)."""
    logger = logging.getLogger(name)
    # pytest's capture handlers (on the root, and on loggers that do not propagate) stay
    # out of it: with them the record path is taken, as it should be.
    logger.handlers[:] = [handler]
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield logger
    finally:
        logger.handlers.clear()
        logger.filters.clear()
        handler.close()


@pytest.mark.parametrize("formatter", [JsonFormatter(), TextFormatter()])
def test_a_line_queued_without_a_record_is_the_line_the_record_gives(formatter):
    """With memtap's handler the only one, `log_fields` queues the line's parts (no
    LogRecord): the written line is the one `logger.log` gives, byte for byte."""
    stream = io.StringIO()
    handler = BatchingHandler(stream, formatter, interval_s=60)
    fields = {"request_id": "ab" * 16, "status": 200, "ms": 1.25, "x": None, "n": [1]}
    with _isolated("memtap.test.direct", handler) as logger:
        log_fields(logger, logging.INFO, "request.done", fields)
        assert isinstance(handler._pending[0], tuple)  # no record was made
        log_fields(logger, logging.WARNING, "request.done", {})
        created = handler._pending[0][0]
        handler.flush()
        direct = stream.getvalue().splitlines()
        record = _record("request.done", fields)
        record.name, record.created = logger.name, created
        record.levelno, record.levelname = logging.INFO, "INFO"
        assert direct[0] == formatter.format(record)
        if isinstance(formatter, JsonFormatter):
            line = json.loads(direct[0])
            assert list(line)[:4] == ["ts", "level", "event", "logger"]
            assert {k: line[k] for k in fields} == fields
            assert json.loads(direct[1])["level"] == "warning"


def test_a_queued_line_with_a_secret_is_redacted_and_a_record_only_once():
    stream = io.StringIO()
    handler = BatchingHandler(stream, JsonFormatter(), interval_s=60)
    with _isolated("memtap.test.direct_secret", handler) as logger:
        log_fields(logger, logging.INFO, "request.done", {"path": "/v1?a=1"})
        log_fields(logger, logging.INFO, "request.done", {"path": f"/m?key={SECRET}"})
        logger.info("other", extra={"fields": {"api_key": OPAQUE_SECRET}})
        handler.flush()
    clean, queued, record = stream.getvalue().splitlines()
    assert json.loads(clean)["path"] == "/v1?a=1"
    assert SECRET not in queued and json.loads(queued)["path"] == "/m?key=[REDACTED]"
    assert OPAQUE_SECRET not in record
    assert json.loads(record)["api_key"] == "[REDACTED]"  # redacted once, not twice


def test_a_queued_line_that_cannot_be_formatted_is_reported_and_a_swapped_formatter_used():
    failed: list[logging.LogRecord] = []

    class Reporting(BatchingHandler):
        def handleError(self, record: logging.LogRecord) -> None:
            failed.append(record)

    stream = io.StringIO()
    handler = Reporting(stream, JsonFormatter(), interval_s=60)
    with _isolated("memtap.test.direct_bad", handler) as logger:
        log_fields(
            logger, logging.INFO, "request.done", {"n": 2**70}
        )  # orjson: >64 bits
        log_fields(logger, logging.INFO, "request.done", {"n": 1})
        handler.flush()
        assert [r.getMessage() for r in failed] == ["request.done"]
        assert failed[0].fields == {"n": 2**70}
        assert [json.loads(x)["n"] for x in stream.getvalue().splitlines()] == [1]
        log_fields(logger, logging.INFO, "swapped", {"n": 3})
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        handler.flush()
        assert stream.getvalue().splitlines()[-1] == "INFO swapped"


def test_log_fields_makes_a_record_when_another_handler_or_a_filter_listens():
    stream = io.StringIO()
    handler = BatchingHandler(stream, JsonFormatter(), interval_s=60)
    keep = _Keep()
    with _isolated("memtap.test.direct_others", handler) as logger:
        logger.addHandler(keep)  # pytest's caplog, a library's handler
        log_fields(logger, logging.INFO, "request.done", {"n": 1})
        logger.removeHandler(keep)
        logger.addFilter(lambda record: record.fields["n"] != 2)
        log_fields(logger, logging.INFO, "request.done", {"n": 2})  # filtered out
        log_fields(logger, logging.INFO, "request.done", {"n": 3})
        assert not any(isinstance(item, tuple) for item in handler._pending)
        handler.flush()
    assert [r.fields["n"] for r in keep.records] == [1]
    assert [json.loads(x)["n"] for x in stream.getvalue().splitlines()] == [1, 3]


def test_timestamps_are_exact_across_seconds():
    """The formatter caches the rendered second: records from different seconds (and back
    again, out of order) must each get their own."""
    formatter = JsonFormatter()
    stamps = []
    for created in (
        1_700_000_000.5,
        1_700_000_000.999,
        1_700_000_001,
        1_700_000_000.25,
    ):
        record = _record("tick", {})
        record.created = created
        stamps.append(json.loads(formatter.format(record))["ts"])
    assert stamps == [
        "2023-11-14T22:13:20.500Z",
        "2023-11-14T22:13:20.999Z",
        "2023-11-14T22:13:21.000Z",
        "2023-11-14T22:13:20.250Z",
    ]


def test_text_formatter():
    line = TextFormatter().format(
        _record("request.done", {"status": 200, "path": "/v1/x", "note": "two words"})
    )
    assert " request.done " in line
    assert "status=200" in line and "path=/v1/x" in line and 'note="two words"' in line


def test_configure_logging_writes_redacted_lines_off_thread():
    stream = io.StringIO()
    setup = configure_logging("json", "debug", stream=stream)
    try:
        logging.getLogger("memtap.test").info(
            "thing.happened", extra={"fields": {"key": f"x-api-key: {OPAQUE_SECRET}"}}
        )
        logging.getLogger("aiohttp.client").error(
            "failed for %s", f"https://h/p?key={OPAQUE_SECRET}"
        )
    finally:
        setup.close()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["event"] for line in lines] == [
        "thing.happened",
        "failed for https://h/p?key=[REDACTED]",
    ]
    assert OPAQUE_SECRET not in stream.getvalue()


# -- end to end: a real memtap process -------------------------------------------------


@pytest.mark.slow
async def test_request_done_fields_and_no_secret_anywhere(standin, memtap_process):
    proc = await memtap_process(
        {
            "log": {"level": "debug"},
            "upstreams": [
                {"name": "standin", "url": standin.url},
                {"name": "dead", "url": "http://127.0.0.1:9", "prefix": "/dead"},
            ],
        }
    )
    async with aiohttp.ClientSession() as client:
        requests = [
            (
                "POST",
                "/v1/chat/completions",
                {"Authorization": f"Bearer {SECRET}"},
                {"model": "m", "messages": []},
            ),
            (
                "POST",
                "/v1/messages",
                {"x-api-key": SECRET},
                {"model": "m", "max_tokens": 5, "stream": True},
            ),
            (
                "GET",
                f"/v1beta/models?key={QUERY_SECRET}",
                {"x-goog-api-key": GOOGLE_SECRET},
                None,
            ),
            (
                "GET",
                f"/dead/v1/models?key={QUERY_SECRET}",
                {"Authorization": f"Bearer {SECRET}"},
                None,
            ),
            (
                "GET",
                f"/v1/models?key={QUERY_SECRET}",
                {"Proxy-Authorization": f"Basic {OPAQUE_SECRET}"},
                None,
            ),
        ]
        for method, path, headers, body in requests:
            async with client.request(
                method, proc.url + path, headers=headers, json=body
            ) as response:
                await response.read()
    assert await proc.terminate() == 0
    output = (
        proc.stderr_text() + "\n".join(proc.stdout_lines) + await proc.read_stdout()
    )
    for secret in (SECRET, GOOGLE_SECRET, QUERY_SECRET, OPAQUE_SECRET):
        assert secret not in output, secret

    done = [e for e in proc.log_events() if e["event"] == "request.done"]
    assert len(done) == len(requests)
    for event in done:
        for field in (
            "request_id", "method", "path", "upstream", "status", "duration_ms",
            "ttfb_ms", "owner", "memories_injected", "stream", "ts", "level",
        ):  # fmt: skip
            assert field in event, field
    first, sse, gemini, dead, _ = done
    assert first["owner"] == hashlib.sha256(SECRET.encode()).hexdigest()[:24]
    assert (
        first["status"] == 200
        and first["stream"] is False
        and first["upstream"] == "standin"
    )
    assert sse["stream"] is True and sse["bytes_out"] > 0 and sse["ttfb_ms"] is not None
    assert gemini["owner"] == hashlib.sha256(GOOGLE_SECRET.encode()).hexdigest()[:24]
    assert gemini["path"] == "/v1beta/models"  # never the query string
    assert (
        dead["status"] == 502
        and dead["upstream"] == "dead"
        and dead["error_kind"] == "connect"
    )


@pytest.mark.slow
async def test_text_log_format(standin, memtap_process):
    proc = await memtap_process(args=["--log-format", "text"])
    async with (
        aiohttp.ClientSession() as client,
        client.get(proc.url + "/v1/models") as response,
    ):
        assert response.status == 200
    assert await proc.terminate() == 0
    lines = [
        line for line in proc.stderr_text().splitlines() if " request.done " in line
    ]
    assert len(lines) == 1
    assert "status=200" in lines[0] and "upstream=standin" in lines[0]
    assert not proc.stderr_text().lstrip().startswith("{")


def test_a_blocked_log_reader_bounds_the_queue_and_is_told_what_was_dropped():
    release = threading.Event()

    class BlockedStream(io.StringIO):
        def write(self, text: str) -> int:
            release.wait(10)  # stderr piped to a reader that stopped reading
            return super().write(text)

    stream = BlockedStream()
    handler = BatchingHandler(stream, JsonFormatter(), interval_s=0.001, max_pending=50)
    handler.emit(_record("first", {}))
    deadline = time.monotonic() + 5
    while handler._pending and time.monotonic() < deadline:
        time.sleep(0.001)  # until the writer took the first line and blocks in write()
    for i in range(500):
        handler.emit(_record(f"line {i}", {}))
    assert len(handler._pending) <= 50
    assert handler.dropped_total == 450
    release.set()
    handler.close()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    dropped = [line for line in lines if line["event"] == "log.dropped"]
    assert dropped and dropped[0]["lines"] == 450
    assert len(lines) == 1 + 50 + 1
