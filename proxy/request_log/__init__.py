"""The request log: the recent requests that went through memory, one entry each, in a
bounded ring (`ring.py`), written through to the engine's local file with
`admin.request_log_store: database` (`store.py`). Its hooks on the request path are the addon
`proxy/addons/request_log.py`, its endpoint `proxy/admin/requests.py`; the engine keeps the
entries through the `RequestLogStore` port (`engine/ports.py`, `engine/sqlite/request_log.py`)."""
