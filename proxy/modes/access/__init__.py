"""Who may use the forward proxy, and where to: proxy authentication (`proxy_auth.py`) and
the destination policy for clients that are not on this host (`destinations.py`).

The modes call in at two places only: a CONNECT once its head is read
(`proxy/modes/connect.py`), and an absolute-URI request once its route is known
(`forward_gate.py`, called by the request handler). Reverse-mode requests never pass through here.
"""
