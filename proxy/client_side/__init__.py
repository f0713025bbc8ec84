"""The client side of a listener, below the request path: the time a client may take
(head, body, keep-alive, writes) and the malformed requests it may send (`edges.py`), and
how many connections it may hold (`limits.py`)."""
