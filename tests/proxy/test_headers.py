"""Header rules as pure functions: what is stripped each way, and the remembered per-set
decisions that make them cheap (they must give what a fresh decision gives)."""

from __future__ import annotations

from multidict import CIMultiDict, CIMultiDictProxy

from memtap.proxy import headers
from memtap.proxy.headers import (
    read_memtap_headers,
    strip_hop_by_hop,
    upstream_request_headers,
)


def _h(*items: tuple[str, str]) -> CIMultiDictProxy[str]:
    return CIMultiDictProxy(CIMultiDict(items))


def test_upstream_headers_drop_hop_by_hop_memtap_host_and_expect():
    out = upstream_request_headers(
        _h(
            ("Host", "memtap:8080"),
            ("Authorization", "Bearer k"),
            ("Connection", "keep-alive, X-Trace"),
            ("X-Trace", "1"),
            ("Keep-Alive", "timeout=5"),
            ("Proxy-Authorization", "Basic x"),
            ("X-Memtap-Session", "s"),
            ("Expect", "100-continue"),
            ("Accept", "a"),
            ("accept", "b"),
        ),
        "upstream:443",
    )
    assert list(out.items()) == [
        ("Authorization", "Bearer k"),
        ("Accept", "a"),
        ("accept", "b"),
        ("Host", "upstream:443"),
    ]


def test_the_same_names_with_other_connection_tokens_are_decided_again():
    """The remembered decision is per names *and* Connection values: a header named by
    Connection is hop-by-hop in that request only."""
    names = (("Connection", "X-A"), ("X-A", "1"), ("X-B", "2"))
    first = strip_hop_by_hop(_h(*names))
    other = strip_hop_by_hop(_h(("Connection", "X-B"), ("X-A", "1"), ("X-B", "2")))
    again = strip_hop_by_hop(_h(*names))
    assert list(first.items()) == [("X-B", "2")]
    assert list(other.items()) == [("X-A", "1")]
    assert list(again.items()) == [("X-B", "2")]


def test_values_change_nothing_but_the_values_and_repeats_survive():
    for cookie in ("a=1", "b=2"):
        out = strip_hop_by_hop(
            _h(
                ("Set-Cookie", cookie),
                ("Transfer-Encoding", "chunked"),
                ("Set-Cookie", "z"),
            )
        )
        assert list(out.items()) == [("Set-Cookie", cookie), ("Set-Cookie", "z")]


def test_x_memtap_headers_stay_on_responses_and_leave_requests():
    both = _h(("X-Memtap-Memory", "off"), ("Accept", "*/*"))
    assert "X-Memtap-Memory" in strip_hop_by_hop(both)
    assert "X-Memtap-Memory" not in upstream_request_headers(both, "u")


def test_remembered_header_sets_are_bounded():
    headers._plans.clear()
    for i in range(headers.MAX_PLANS * 3):
        out = strip_hop_by_hop(_h((f"X-Name-{i}", "v"), ("TE", "trailers")))
        assert list(out.items()) == [(f"X-Name-{i}", "v")]
        assert len(headers._plans) <= headers.MAX_PLANS


def test_memtap_request_headers():
    assert read_memtap_headers(_h(("Accept", "*/*"))) == headers.MemtapRequestHeaders(
        None, None
    )
    got = read_memtap_headers(
        _h(("x-memtap-session", " s1 "), ("X-Memtap-Memory", "READ"))
    )
    assert got == headers.MemtapRequestHeaders("s1", "read")
    assert read_memtap_headers(_h(("X-Memtap-Memory", " "))).memory is None
