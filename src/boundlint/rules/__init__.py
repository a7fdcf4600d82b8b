"""Rule families: fanout (BND1xx), request_shape (BND2xx), amplification (BND3xx), churn (BND4xx)."""
