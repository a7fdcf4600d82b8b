"""The default entries of every table: ``name -> (description, entries, family option that adds entries)``.

Qualified names are canonical (``asyncio.Semaphore``, not ``asyncio.locks.Semaphore``).
Short names match the last part of a call (``sleep`` matches ``time.sleep`` and ``self.sleep``).
"""
from __future__ import annotations

import re

# Names that say a value is a limiter when nothing else does (``sem``, ``self._limiter``); the
# last resort of every limiter question, shared by the CST analysis and the project index.
LIMITER_WORDS = re.compile(r"semaphore|limiter|throttl|(?:^|_)sem(?:$|_)|concurrency_limit|capacity", re.I)
# How code takes a limiter's slot by call: `sem.acquire()`; `acquire_nowait()` fails fast when none is
# free, so at most N get past it either way; a wrapper class's `await self._sem.__aenter__()`.
SLOT_GRABS = frozenset({"acquire", "acquire_nowait", "__aenter__", "__enter__"})

_HTTP = ("get", "post", "put", "patch", "delete", "head", "options", "request")

DEFAULTS: dict[str, tuple[str, tuple[str, ...], str | None]] = {
    "limiters": (
        "Constructors of semaphores, capacity limiters and rate limiters: entering one bounds concurrency.",
        ("asyncio.Semaphore", "asyncio.BoundedSemaphore", "threading.Semaphore", "threading.BoundedSemaphore",
         "multiprocessing.Semaphore", "multiprocessing.BoundedSemaphore", "anyio.Semaphore",
         "anyio.CapacityLimiter", "trio.Semaphore", "trio.CapacityLimiter", "aiolimiter.AsyncLimiter",
         "asyncio_throttle.Throttler", "limits.aio.strategies.MovingWindowRateLimiter"),
        None),
    "limiter-class-names": (
        "Class names that are limiters whatever module provides them (a parameter annotated with one is a limiter).",
        ("Semaphore", "BoundedSemaphore", "CapacityLimiter", "AsyncLimiter", "Throttler"),
        None),
    "limiter-helpers": (
        "Project helpers that enter a limiter (qualified or as written): `async with app.pools.checkout():`.",
        (), "limiter-helpers"),
    "client-constructors": (
        "Calls that build a network client, session, pool or connection (HTTP, sockets, caches, databases, RPC, queues).",
        ("aiohttp.ClientSession", "aiohttp.TCPConnector", "aiohttp.client.ClientSession",
         "httpx.Client", "httpx.AsyncClient",
         "requests.Session", "requests.session", "requests.sessions.Session",
         "urllib3.PoolManager", "urllib3.ProxyManager", "urllib3.HTTPConnectionPool", "urllib3.HTTPSConnectionPool",
         "urllib3.connection_from_url", "urllib3.poolmanager.PoolManager",
         "http.client.HTTPConnection", "http.client.HTTPSConnection",
         "socket.socket", "socket.create_connection",
         "redis.Redis", "redis.StrictRedis", "redis.Redis.from_url", "redis.StrictRedis.from_url", "redis.from_url",
         "redis.client.Redis", "redis.client.StrictRedis", "redis.ConnectionPool", "redis.RedisCluster",
         "redis.asyncio.Redis", "redis.asyncio.StrictRedis", "redis.asyncio.Redis.from_url", "redis.asyncio.from_url",
         "redis.asyncio.client.Redis", "redis.asyncio.ConnectionPool", "redis.asyncio.RedisCluster",
         "aioredis.Redis", "aioredis.from_url", "aioredis.create_redis_pool", "aioredis.create_redis",
         "pymemcache.Client", "pymemcache.HashClient", "pymemcache.PooledClient",
         "pymemcache.client.base.Client", "pymemcache.client.base.PooledClient", "pymemcache.client.hash.HashClient",
         "aiomcache.Client",
         "asyncpg.connect", "asyncpg.create_pool",
         "psycopg.connect", "psycopg.Connection.connect", "psycopg.AsyncConnection.connect",
         "psycopg_pool.ConnectionPool", "psycopg_pool.AsyncConnectionPool",
         "psycopg2.connect", "psycopg2.pool.SimpleConnectionPool", "psycopg2.pool.ThreadedConnectionPool",
         "pymysql.connect", "aiomysql.connect", "aiomysql.create_pool", "mysql.connector.connect",
         "pymongo.MongoClient", "motor.motor_asyncio.AsyncIOMotorClient", "motor.motor_tornado.MotorClient",
         "motor.MotorClient", "motor.AsyncIOMotorClient",
         "elasticsearch.Elasticsearch", "elasticsearch.AsyncElasticsearch",
         "sqlalchemy.create_engine", "sqlalchemy.ext.asyncio.create_async_engine",
         "grpc.insecure_channel", "grpc.secure_channel", "grpc.aio.insecure_channel", "grpc.aio.secure_channel",
         "boto3.client", "boto3.resource", "boto3.Session", "boto3.session.Session",
         "aioboto3.Session", "aioboto3.session.Session",
         "aiokafka.AIOKafkaProducer", "aiokafka.AIOKafkaConsumer", "kafka.KafkaProducer", "kafka.KafkaConsumer",
         "pika.BlockingConnection", "aio_pika.connect", "aio_pika.connect_robust",
         "aiormq.connect", "nats.connect",
         "pymssql.connect", "pyodbc.connect", "oracledb.connect", "cx_Oracle.connect", "MySQLdb.connect",
         "clickhouse_driver.Client", "cassandra.cluster.Cluster",
         "asyncio.open_connection", "trio.open_tcp_stream", "trio.open_ssl_over_tcp_stream", "anyio.connect_tcp",
         "websockets.connect", "websockets.client.connect", "websockets.asyncio.client.connect",
         "websockets.sync.client.connect", "websocket.create_connection",
         "smtplib.SMTP", "smtplib.SMTP_SSL", "smtplib.LMTP", "aiosmtplib.SMTP",
         "ftplib.FTP", "ftplib.FTP_TLS", "imaplib.IMAP4", "imaplib.IMAP4_SSL", "poplib.POP3", "poplib.POP3_SSL"),
        "client-factories"),
    "shared-pool-keywords": (
        "Keywords that hand a client a pool, connector or transport built elsewhere: it opens no connection of its own.",
        ("connection_pool", "connector", "transport", "pool", "http_client", "session"),
        None),
    "serialisers": (
        "Methods that serialise a model: a model built and dumped in one module is a payload it sends or stores.",
        ("model_dump", "model_dump_json", "dict", "json", "to_dict", "to_json"),
        None),
    "sessionless-calls": (
        "One-shot request helpers that open a fresh connection on every call.",
        (*(f"requests.{m}" for m in _HTTP), *(f"requests.api.{m}" for m in _HTTP),
         *(f"httpx.{m}" for m in (*_HTTP, "stream")),
         "urllib.request.urlopen", "urllib2.urlopen", "aiohttp.request"),
        None),
    "accept-calls": (
        "Methods that accept one incoming connection on a listener: a loop that starts a handler per accepted "
        "connection is a server's accept loop, bounded by design.",
        ("accept",),
        None),
    "sleeps": (
        "Calls that pause the caller: a pause of 0.1 s or more paces a failing loop.",
        ("time.sleep", "asyncio.sleep", "anyio.sleep", "trio.sleep", "gevent.sleep", "eventlet.sleep",
         "eventlet.greenthread.sleep", "anyio.sleep_until", "trio.sleep_until", "trio.sleep_forever"),
        None),
    "batchers": (
        "Functions that split an iterable into fixed-size batches when given a constant size.",
        ("batched", "chunked", "chunks", "chunk", "batches", "batch", "grouper", "sliced", "chunkify",
         "partition_all", "iter_batches", "iter_chunks"),
        None),
    "bounded-names": (
        "Names of collections sized by configuration, not by a request (the servers, workers, shards ...).",
        ("listeners", "servers", "workers", "consumers", "producers", "receivers", "handlers", "callbacks",
         "hooks", "plugins", "middlewares", "middleware", "shards", "replicas", "nodes", "sentinels",
         "databases", "dbs", "backends", "services", "apps", "applications", "pools", "storages",
         "sinks", "exporters", "deployments", "health_checks", "queues", "brokers", "broker_urls", "exchanges",
         "topics", "base_urls", "upstreams", "regions", "zones", "clusters", "datacenters"),
        "bounded-names"),
    "settings-bases": (
        "Base classes of settings objects: a collection read from an instance of one is configured.",
        ("pydantic_settings.BaseSettings", "pydantic.BaseSettings", "pydantic.v1.BaseSettings",
         "pydantic_settings.main.BaseSettings", "environs.Env", "dynaconf.Dynaconf", "starlette.config.Config",
         "goodconf.GoodConf"),
        None),
    "signal-classes": (
        "Signal classes (and modules that define signals): `send(...)` returns one result per connected receiver, i.e. per installed plugin.",
        ("django.dispatch.Signal", "django.dispatch.dispatcher.Signal", "django.db.models.signals",
         "django.core.signals", "blinker.Signal", "blinker.NamedSignal", "blinker.base.Signal",
         "blinker.base.NamedSignal"),
        None),
    "registry-words": (
        "Last words of an object's name that make it the registry of the configured kind the word before names (`callback_manager`).",
        ("manager", "registry"),
        None),
    "serializer-bases": (
        "Serializer base classes: the data handed to their `create` / `update` / `validate` has one key per declared field.",
        ("rest_framework.serializers.Serializer", "rest_framework.serializers.ModelSerializer",
         "rest_framework.serializers.HyperlinkedModelSerializer"),
        None),
    "setup-methods": (
        "Methods that set an object up before it works: state they alone assign (and what only they call) is fixed at set-up.",
        ("__init__", "__post_init__", "__attrs_post_init__", "setup", "setUp", "set_up", "start", "startup",
         "on_startup", "before_run", "initialize", "initialise", "configure"),
        None),
    "endpoint-methods": (
        "Route decorator methods (`@router.post(...)`) that make a function a web endpoint.",
        ("get", "post", "put", "patch", "delete", "head", "options", "trace", "api_route", "websocket",
         "route", "api_operation", "add_route"),
        None),
    "dependency-markers": (
        "Parameter defaults whose argument the server computes, so the client does not send it.",
        ("Depends", "Security", "Provide", "Dependency", "Inject"),
        None),
    "executors": (
        "Executor and pool constructors whose submit/map run work on a fixed set of workers.",
        ("concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
         "multiprocessing.Pool", "multiprocessing.ThreadPool", "multiprocessing.pool.Pool",
         "loky.get_reusable_executor"),
        None),
    "threads": (
        "Constructors of one thread or process per call.",
        ("threading.Thread", "threading.Timer", "multiprocessing.Process"),
        None),
    "task-groups": (
        "Task group and nursery factories whose spawns run concurrently.",
        ("asyncio.TaskGroup", "anyio.create_task_group", "trio.open_nursery", "anyio.abc.TaskGroup",
         "trio.Nursery", "asyncio_taskpool.TaskPool"),
        None),
    "logger-factories": (
        "Calls that make a logger.",
        ("logging.getLogger", "logging.LoggerAdapter", "logging.Logger", "logging.getLoggerClass",
         "structlog.get_logger", "structlog.getLogger", "structlog.wrap_logger", "structlog.stdlib.get_logger",
         "celery.utils.log.get_task_logger", "celery.utils.log.get_logger", "logbook.Logger",
         "twisted.logger.Logger", "loguru.logger"),
        None),
    "logger-names": (
        "Names that are loggers when nothing else says so.",
        ("logger", "log", "LOG", "LOGGER", "_logger", "_log", "_LOGGER", "_LOG", "logs", "_logs"),
        "logger-names"),
    "abort-calls": (
        "Calls that end the request or the process on every path (an `if` that calls one rejects).",
        ("abort", "exit", "_exit", "abort_with_status", "fail", "reject"),
        None),
    "row-sources": (
        "Methods whose result is data read at run time, as many items as the store holds: query rows, a remote "
        "listing, a message batch (matched by the last name of a method call: `await db.fetch_all(q)`).",
        ("fetch", "fetchall", "fetch_all", "fetchmany", "fetch_many", "fetch_rows", "scalars", "list_objects",
         "list_objects_v2", "receive_messages", "xread", "xreadgroup", "xrange", "lrange", "smembers", "scan_iter",
         "getmany", "find"),
        None),
    "enum-bases": (
        "Base classes that make a class an enum, a closed set of members (matched by last name, through any "
        "chain of the project's own bases): a loop over its members is bounded, a field typed with it holds one.",
        ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum", "TextChoices", "IntegerChoices"),
        None),
    "backoff-iterators": (
        "Iterators that wait with backoff before each new round.",
        ("websockets.connect", "websockets.client.connect", "websockets.asyncio.client.connect",
         "tenacity.Retrying", "tenacity.AsyncRetrying", "stamina.retry_context"),
        None),
}
