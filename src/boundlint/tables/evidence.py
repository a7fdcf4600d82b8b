"""Default tables of the evidence behind a finding's severity: dependencies and where code runs.

Same shape as ``defaults.DEFAULTS``: ``name -> (description, entries, family option)``.
"""
from __future__ import annotations

EVIDENCE: dict[str, tuple[str, tuple[str, ...], str | None]] = {
    "dependency-modules": (
        "Packages whose calls reach an external dependency (network, database, cache, queue, storage, subprocess).",
        ("aioboto3", "aiobotocore", "aiohttp", "aiokafka", "aiomcache", "aiomysql", "aiopg", "aio_pika", "aioredis",
         "aiosmtplib", "anthropic", "asyncpg", "azure", "boto3", "botocore", "cassandra", "clickhouse_connect",
         "confluent_kafka", "couchbase", "databases", "elasticsearch", "ftplib", "google.cloud", "googleapiclient",
         "grpc", "http.client", "httpx", "kafka", "kombu", "ldap3", "motor", "mysql", "nats", "neo4j", "openai",
         "opensearchpy", "paramiko", "pika", "psycopg", "psycopg2", "pymemcache", "pymongo", "pymysql", "pysftp",
         "qdrant_client", "redis", "requests", "slack_sdk", "smtplib", "socket", "sqlalchemy", "stripe",
         "subprocess", "telnetlib", "urllib.request", "urllib3", "websocket", "websockets", "zmq",
         "asyncio.open_connection", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
         "os.system", "os.popen", "shutil.copyfileobj"),
        None),
    "dependency-receivers": (
        "Product words in a receiver's name that make a method call on it a dependency call wherever they stand "
        "(`self.redis_pool.get`, `s3_bucket.put`); role words count only last (`dependency-receiver-roles`).",
        ("boto", "db", "dynamo", "es", "http", "kafka", "memcache", "mongo", "redis", "s3", "sftp", "smtp", "sqs",
         "sns", "ws", "websocket"),
        None),
    "dependency-receiver-roles": (
        "Role words that make a method call a dependency call only as the receiver's head noun, its last word "
        "(`self.http_client.get`, `upstream.send`; not `group.upstream_group_ids.update`, a set of ids).",
        ("api", "bucket", "channel", "client", "consumer", "poller", "subscriber", "conn", "connection", "cursor",
         "database", "engine", "producer", "publisher", "queue", "remote", "repo", "repository", "session",
         "storage", "stub", "transport", "upstream", "socket", "sock"),
        None),
    "dependency-methods": (
        "Method names that reach a dependency whatever the receiver (`await obj.fetchrow(...)`).",
        ("execute", "executemany", "fetch", "fetchall", "fetchmany", "fetchone", "fetchrow", "fetchval",
         "urlopen", "send_message", "publish", "put_object", "get_object", "upload_file", "download_file",
         "invoke", "send_request", "scan_iter", "hgetall", "setex", "lpush", "rpush", "xadd", "sendall",
         "recv", "connect", "query", "commit", "refresh_from_db", "save", "bulk_create", "bulk_update",
         "get_or_create", "update_or_create", "insert_one", "insert_many", "find_one", "update_one",
         "delete_one", "delete_many", "ainvoke", "acompletion", "completion", "embedding", "aembedding",
         ),
        None),
    "dependency-verbs": (
        "First words of a callee's name that say it reaches a dependency when its code is out of sight "
        "(`fetch_user()` from a library or an undefined name); the project's own functions are read instead.",
        ("fetch", "download", "upload", "send", "post", "publish", "notify", "request", "query", "crawl", "scrape",
         "ping", "probe", "push", "pull", "call", "invoke", "sync", "deliver", "dispatch", "enqueue", "emit",
         "http", "rpc", "grpc", "api", "remote", "webhook", "email", "mail", "sms", "store", "persist", "insert",
         "delete", "update", "write", "save", "connect", "resolve", "lookup", "refresh", "hydrate", "load"),
        None),
    "dependency-errors": (
        "Exceptions that only a failing dependency raises: a handler that catches one shows the `try` reaches it "
        "(exceptions of a `dependency-modules` package count too).",
        ("ConnectionError", "ConnectionResetError", "ConnectionRefusedError", "ConnectionAbortedError",
         "BrokenPipeError", "TimeoutError", "asyncio.TimeoutError", "socket.timeout", "socket.error", "socket.gaierror",
         "socket.herror", "OSError", "IOError", "EnvironmentError", "BufferError", "ssl.SSLError",
         "concurrent.futures.TimeoutError", "urllib.error.URLError", "urllib.error.HTTPError", "http.client.HTTPException",
         "subprocess.CalledProcessError", "subprocess.TimeoutExpired", "smtplib.SMTPException"),
        None),
    "dependency-outage-errors": (
        "Exceptions that cover every failure of their dependency, an outage included (a driver's or client's base "
        "error, `ConnectionError`, `OSError`): an earlier handler that raises one again leaves a later catch-all "
        "only the item's own faults (`aiohttp.ClientResponseError`, an error status, is not one).",
        ("sqlalchemy.exc.SQLAlchemyError", "sqlalchemy.exc.DBAPIError", "sqlalchemy.exc.OperationalError",
         "httpx.HTTPError", "httpx.TransportError", "requests.RequestException",
         "requests.exceptions.RequestException", "aiohttp.ClientError", "redis.RedisError",
         "redis.exceptions.RedisError", "psycopg.Error", "psycopg.OperationalError", "psycopg2.Error",
         "psycopg2.OperationalError", "pymongo.errors.PyMongoError", "pymongo.errors.ConnectionFailure",
         "grpc.RpcError", "botocore.exceptions.BotoCoreError", "kombu.exceptions.OperationalError",
         "ConnectionError", "OSError", "IOError", "EnvironmentError", "socket.error"),
        None),
    "local-io-errors": (
        "Entries of `dependency-errors` that local file work raises too: a handler that catches one shows a "
        "dependency only when its `try` is not shown to do local work alone (`os.remove(path)` raises `OSError`).",
        ("OSError", "IOError", "EnvironmentError"),
        None),
    "per-item-errors": (
        "Exceptions of local work on one item, or a verdict on it, never a dependency's failure: a handler that "
        "catches only these logs per bad item, not per outage (a leading `*` matches a name's end).",
        ("ValueError", "KeyError", "TypeError", "IndexError", "AttributeError", "LookupError", "UnicodeDecodeError",
         "UnicodeError", "JSONDecodeError", "ValidationError", "DecodeError", "ParseError", "binascii.Error",
         "struct.error", "UnpicklingError", "InvalidMessage", "MessageDecodeError", "PermissionError",
         "PermissionDenied", "*NotFound", "*DoesNotExist", "*Forbidden", "*Denied", "*Blocked"),
        None),
    "http-error-responses": (
        "Exceptions a web framework turns into an HTTP error response: a handler that catches only these, around "
        "work that raises them only as 4xx verdicts outside any `except` (`HTTPException(status_code=403)`), "
        "logs per refused item, not per outage (a dependency's failure raises its own errors).",
        ("fastapi.HTTPException", "fastapi.exceptions.HTTPException", "starlette.exceptions.HTTPException",
         "werkzeug.exceptions.HTTPException"),
        None),
    "server-contexts": (
        "Classes of a dependency package whose instances are the server's own side of a call it is serving "
        "(gRPC's servicer context): their methods (`context.abort`, `context.set_code`) answer the caller, "
        "not a dependency.",
        ("grpc.ServicerContext", "grpc.aio.ServicerContext"),
        None),
    "launcher-scripts": (
        "Scripts run by their path whose folder Python puts first on `sys.path`: the modules below that folder "
        "import each other by the name below it (`core.utils` next to a Django `manage.py`).",
        ("manage.py",),
        None),
    "limit-keywords": (
        "Keywords that cap how many items a call returns (`claim_due(limit=10)`, SQS "
        "`receive_message(MaxNumberOfMessages=10)`): given a constant, the result holds at most that many.",
        ("limit", "max_results", "max_items", "max_count", "max_records", "max_messages", "num_messages",
         "page_size", "per_page", "batch_size", "top_k", "top_n", "MaxResults", "MaxItems", "MaxRecords",
         "MaxNumberOfMessages"),
        None),
    "once-decorators": (
        "Decorators of functions that run once per process or by hand: CLI commands, start-up hooks, fixtures.",
        ("command", "group", "callback", "on_startup", "on_shutdown", "startup", "shutdown", "lifespan",
         "fixture", "before_serving", "after_serving", "before_first_request", "on_after_configure",
         "before_server_start", "after_server_start", "before_server_stop", "after_server_stop",
         "main", "asynccontextmanager"),
        None),
    "once-functions": (
        "Function names that run once per process: entry points, start-up and lifespan hooks, migrations.",
        ("main", "cli", "run_cli", "lifespan", "startup", "on_startup", "shutdown", "on_shutdown", "setup",
         "setUp", "setUpClass", "upgrade", "downgrade", "migrate", "create_app", "init_app", "ready",
         "handle", "configure", "bootstrap", "install", "_main", "run_migrations_online", "run_migrations_offline"),
        None),
    "once-messages": (
        "Message types a protocol delivers once per process (the ASGI lifespan start-up and shutdown): the "
        "branch of a message loop taken only for one of them runs once.",
        ("lifespan.startup", "lifespan.shutdown"),
        None),
    "reconnect-calls": (
        "Methods that (re)connect and, while the connection fails, retry with an increasing interval "
        "(kombu's `Connection.ensure_connection`): a loop that makes one before its work each round is paced "
        "when the dependency is down.",
        ("ensure_connection",),
        None),
    "migration-flags": (
        "Words in the name of a setting that turns migrations on (`ENABLE_DB_MIGRATIONS`, `AUTO_MIGRATE`): a "
        "call under `if FLAG:` on one is a migration step, which runs once per deployment.",
        ("migrate", "migration", "migrations"),
        None),
    "hook-registrars": (
        "Methods that register the function they are given as a start-up or shutdown hook "
        "(`app.before_server_start(f)`, also `partial(f, ...)`): that function runs once per process.",
        ("before_server_start", "after_server_start", "before_server_stop", "after_server_stop",
         "main_process_start", "main_process_ready", "main_process_stop", "before_serving", "after_serving"),
        None),
    "entry-points": (
        "Once-functions and once-decorators that start a whole program (entry points, CLI commands): they run "
        "once, but may hold a server's or worker's loops, so a function called from one is not shown to run once.",
        ("main", "_main", "cli", "run_cli", "handle", "command", "group", "callback"),
        None),
    "worker-decorators": (
        "Decorators that make a function a background worker: task queues, consumers, schedulers.",
        ("task", "shared_task", "periodic_task", "actor", "job", "consumer", "subscriber", "on_message",
         "scheduled_job", "cron", "repeat_every", "agent", "timer", "interval"),
        None),
    "periodic-decorators": (
        "Worker decorators that run a function on a schedule, not once per message: its failure logs once per period.",
        ("periodic_task", "scheduled_job", "cron", "repeat_every", "timer", "interval"),
        None),
    "operator-guards": (
        "Words in the name of an endpoint's injected dependency (`Depends(get_admin_user)`) that let only the "
        "service's operators through: rows only such endpoints create are configured, like settings.",
        ("admin", "superuser", "staff"),
        None),
    "row-creating-verbs": (
        "First words of the methods of a table object that add rows (`insert_new_function`, `sync_functions`).",
        ("insert", "create", "add", "sync", "import", "upsert", "register", "bulk", "save", "new"),
        None),
}
