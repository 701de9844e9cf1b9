"""Notice models (events, receipts, reviews)."""
