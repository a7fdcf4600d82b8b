"""Analytics export API on Sanic (case hb14)."""
