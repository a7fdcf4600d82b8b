"""Environment doctor API on Litestar with attrs request bodies (case db07)."""
