import logging
from concurrent.futures import ThreadPoolExecutor

from flask import Flask, request

app = Flask(__name__)
logger = logging.getLogger(__name__)


def render(report_id):
    try:
        return open(report_id).read()
    except OSError:
        logger.exception("render failed for %s", report_id)


@app.route("/export", methods=["POST"])
def export():
    ids = request.args.getlist("id")
    with ThreadPoolExecutor(max_workers=len(ids)) as pool:
        return list(pool.map(render, ids))
