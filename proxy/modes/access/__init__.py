"""Who may use the forward proxy, and where to: proxy authentication (`proxy_auth.py`) and
the destination policy for clients that are not on this host (`destinations.py`).

The modes call in at three places only: a CONNECT once its head is read (authentication,
`proxy/modes/connect.py`), a blind tunnel once its target is resolved (destinations,
`proxy/modes/tunnel.py`, through `connect_gate.py`), and an absolute-URI request once its
route is known (`proxy/forward_gate.py`, called by the request handler: request-level, so
outside modes/). Reverse-mode requests never pass through here.
"""
