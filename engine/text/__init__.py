"""Text tools every layer may import (extraction, retrieval, episodes, maintenance, stores):
normal forms, the stemmer, the sentence splitter and the lexicon shared by all languages."""
