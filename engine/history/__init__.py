"""Past conversations brought in as if they had passed through the proxy at their own times.

`messages` reads one message (owner, session, role, content, time) and pairs messages into
turns; `jsonl` reads a JSON-lines file of messages; `chatgpt` reads ChatGPT's data export;
`importer` sends the turns through the outbox (the path live turns take), once each, and
waits for the worker to report what it extracted.
"""
