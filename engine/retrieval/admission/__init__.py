"""Retrieval's admission: what a retrieval may do before it ranks — wait for the owner's own
writes still in the outbox (`pending.py`), take one of the slots for the vector legs
(`slots.py`), or shed to the keyword leg while the event loop lags (`loop_lag.py`)."""
