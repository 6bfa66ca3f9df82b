"""A simulated recommender served over HTTP on the loopback address, and its client.

The server (:func:`make_server`, bound to 127.0.0.1 only, HTTP/1.1 keep-alive) answers JSON:

* ``GET /info`` — version, seed, description, partitions and the ``fingerprint`` (version, seed,
  configuration digest); a pull made for another fingerprint is refused (HTTP 409), so an audit
  never continues against a service restarted with another seed or configuration.
* ``GET /groups?partition=P`` — ``n_groups``, ``sizes``, ``names``.
* ``GET /truth?partition=P`` — ``arm_means`` (G × G), the simulator's ground truth, for costs
  (eq. 10) and constraint (7); a real system would not offer it.
* ``POST /pull`` ``{"partition": P, "pulls": [[group, arm, step], ...]}`` → ``{"rewards": [...]}``:
  PULL-ARM of Algorithm 2 (App. F) through the transport matching (Def. 4.2); draws keyed by
  (seed, group, step) (:func:`ocef.envy.live.pull_generator`), so a retry gets the same answer.
* ``GET /recommend?user=U&k=K`` — the user's K most probable items.
* ``POST /feedback`` ``{"user": U, "items": [...], "key": int (optional)}`` — a click,
  Bernoulli(ρ^U(a)), per shown item.

``fail_every=N`` answers every N-th ``/pull`` with 503 (fault injection). :class:`ServiceClient`
retries transient failures with exponential backoff, then raises :class:`ServiceError`.
"""
from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from ocef.envy.live import audit_root, keyed_pull
from ocef.errors import DataError, ParameterError
from ocef.validation import check_positive_int

LOOPBACK = "127.0.0.1"
TRANSIENT_STATUS = (429, 502, 503, 504)


class ServiceError(RuntimeError):
    """The service could not be reached or kept failing after every retry.

    ``ocef audit-live`` then stops; its checkpoint lets the audit resume later.

    Examples
    --------
    >>> server = make_server(toy_service()); port = server.server_address[1]; server.server_close()
    >>> ServiceClient(f"http://127.0.0.1:{port}", retries=1, backoff=0.01).info()     # nothing listens there
    Traceback (most recent call last):
    ...
    ocef.envy.service.ServiceError: GET http://127.0.0.1:.../info failed after 2 attempts (...)
    """


class FingerprintError(DataError):
    """The service answering is not the one the audit started with (another version, seed or
    configuration): continuing would mix two systems' rewards in one verdict.

    Raised by :meth:`SimulatedService.pull` (HTTP 409 over the wire) and by the client on a 409.

    Examples
    --------
    >>> toy_service().pull("groups", [[0, 1, 3]], fingerprint="0.0.0/1/abc")
    Traceback (most recent call last):
    ...
    ocef.envy.service.FingerprintError: this service is .../7/..., the audit started against 0.0.0/1/abc; refusing to mix the two (another version, seed or configuration)
    """


def configuration_digest(description: str, partitions, arrays=()) -> str:
    """A short digest of a service's description, partitions and arrays: same configuration, same digest.

    Parameters
    ----------
    description : str
        The service's description.
    partitions : sequence of str
        The partitions it serves.
    arrays : sequence of numpy.ndarray or None
        Their dtype, shape and bytes enter the digest (None entries are skipped).

    Returns
    -------
    str
        The first 16 hexadecimal digits of a SHA-256.

    Examples
    --------
    >>> configuration_digest("x", ["g"], [np.zeros(2)]) == configuration_digest("x", ["g"], [np.zeros(2)])
    True
    """
    import hashlib

    h = hashlib.sha256(json.dumps({"description": description, "partitions": list(partitions)}).encode())
    for a in arrays:
        if a is None:
            continue
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def fingerprint_id(fingerprint: dict) -> str:
    """The fingerprint as one string ``version/seed/configuration``, as pulls carry it.

    Parameters
    ----------
    fingerprint : dict
        Keys ``version``, ``seed`` and ``configuration`` (``GET /info``).

    Returns
    -------
    str

    Examples
    --------
    >>> fingerprint_id({"version": "0.1.0", "seed": 7, "configuration": "4337950466eba03c"})
    '0.1.0/7/4337950466eba03c'
    """
    return f"{fingerprint['version']}/{fingerprint['seed']}/{fingerprint['configuration']}"


#: First spawn key of the /feedback draws, apart from the audits' keys (0, 1, 2, ...).
_FEEDBACK_KEY = 0xFEED


class SimulatedService:
    """The state of ``ocef simulate-service``: an environment, a policy and a seed.

    Its methods are the endpoints, callable in process; :func:`make_server` serves them over HTTP.

    Parameters
    ----------
    problem_for : callable
        ``problem_for(partition) -> AuditProblem``, called once per partition, on first use.
    partitions : sequence of str
        The first is the default.
    rng : int or None
        The seed S ≥ 0, published by ``/info``; it keys every draw (None: from OS entropy).
    description : str
        Free text published by ``/info`` (part of the fingerprint).
    rho, probs : numpy.ndarray, shape (M, I), optional
        Ground truth for ``/feedback`` and policy for ``/recommend`` (both in the fingerprint).
    fail_every : int, optional
        Answer every N-th ``/pull`` with HTTP 503.

    Examples
    --------
    >>> from ocef.envy.audit import AuditProblem
    >>> from ocef.datasets import make_toy_envy
    >>> problem = AuditProblem(*make_toy_envy())
    >>> SimulatedService(lambda partition: problem, ["groups"], rng=7).pull("groups", [[0, 1, 3], [1, 0, 0]])
    {'rewards': [1.0, 0.5]}
    """

    def __init__(self, problem_for, partitions, *, rng: int | None = 0, description: str = "", rho=None,
                 probs=None, fail_every: int | None = None):
        self._problem_for = problem_for
        self.partitions = list(partitions)
        if rng is None:
            rng = int(np.random.SeedSequence().generate_state(1)[0])
        self.seed = check_positive_int("rng", rng, minimum=0)
        self.root = audit_root(self.seed)
        self.description = description
        self.rho, self.probs = rho, probs
        self.fail_every = fail_every
        self._problems: dict = {}
        self._pulls: dict = {}
        self._lock = threading.Lock()
        self._n_pull_requests = 0
        self._feedback_rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(_FEEDBACK_KEY,)))
        import ocef

        self.fingerprint = {"version": ocef.__version__, "seed": self.seed,
                            "configuration": configuration_digest(description, self.partitions, (rho, probs))}

    def problem(self, partition):
        """The audit problem of ``partition`` and its keyed PULL-ARM, built on first use.

        Parameters
        ----------
        partition : str or None
            None or ``""`` is the default partition.

        Returns
        -------
        tuple of (AuditProblem, callable)
            The problem and ``pull(group, arm, step) -> float`` (:func:`ocef.envy.live.keyed_pull`).

        Examples
        --------
        >>> problem, pull = toy_service().problem(None)
        >>> pull(0, 1, 3), pull(0, 1, 3)
        (1.0, 1.0)
        """
        partition = self.partitions[0] if partition in (None, "") else partition
        if partition not in self.partitions:
            raise ParameterError(f"partition must be one of {', '.join(self.partitions)}, got {partition!r}")
        with self._lock:
            if partition not in self._problems:
                self._problems[partition] = self._problem_for(partition)
                self._pulls[partition] = keyed_pull(self._problems[partition], self.root)
            return self._problems[partition], self._pulls[partition]

    # ------------------------------------------------------------------ endpoints
    def info(self) -> dict:
        """The answer of ``GET /info``.

        Returns
        -------
        dict
            ``service``, ``version``, ``seed``, ``description``, ``partitions``,
            ``default_partition`` and ``fingerprint`` (``version``, ``seed``, ``configuration``).

        Examples
        --------
        >>> toy_service().info()["seed"]
        7
        """
        import ocef

        return {"service": "ocef simulate-service", "version": ocef.__version__, "seed": self.seed,
                "description": self.description, "partitions": self.partitions,
                "default_partition": self.partitions[0], "fingerprint": self.fingerprint}

    def groups(self, partition=None) -> dict:
        """The answer of ``GET /groups``: the number, sizes and names of a partition's groups.

        Parameters
        ----------
        partition : str, optional
            None is the default.

        Returns
        -------
        dict
            ``n_groups``, ``sizes`` (copies counted) and ``names``.

        Examples
        --------
        >>> toy_service().groups("groups")
        {'n_groups': 2, 'sizes': [2, 2], 'names': ['A', 'B']}
        """
        problem, _ = self.problem(partition)
        return {"n_groups": problem.n_groups, "sizes": problem.sizes.tolist(), "names": list(problem.group_names)}

    def truth(self, partition=None) -> dict:
        """The answer of ``GET /truth``: the simulator's ground truth (a real system has none).

        Parameters
        ----------
        partition : str, optional
            None is the default.

        Returns
        -------
        dict
            ``arm_means`` (G × G, row i the μ_0..μ_{G-1} of group i, eq. (6)) and ``true_envy``.

        Examples
        --------
        >>> toy_service().truth()["true_envy"]
        [0.7000000000000001, 0.65]
        """
        problem, _ = self.problem(partition)
        return {"arm_means": problem.arm_means.tolist(), "true_envy": problem.true_envy.tolist()}

    def pull(self, partition, pulls, fingerprint=None) -> dict:
        """The answer of ``POST /pull``: PULL-ARM of Algorithm 2 per (group, arm, step), keyed draws.

        Parameters
        ----------
        partition : str or None
            None is the default.
        pulls : list of [int, int, int]
            ``[group, arm, step]``: arm 0 the group's own recommendations, arm j ≥ 1 the j-th other
            group's; step ≥ 0 that group's auditor step.
        fingerprint : str, optional
            :func:`fingerprint_id` of the service the audit started with.

        Returns
        -------
        dict
            ``{"rewards": [...]}``, one group-average reward in [0, 1] per triple.

        Raises
        ------
        FingerprintError
            When ``fingerprint`` is another service's (HTTP 409 over the wire).

        Examples
        --------
        >>> toy_service().pull("groups", [[0, 1, 3], [1, 0, 0], [0, 1, 3]])
        {'rewards': [1.0, 0.5, 1.0]}
        """
        if fingerprint is not None and fingerprint != fingerprint_id(self.fingerprint):
            raise FingerprintError(f"this service is {fingerprint_id(self.fingerprint)}, the audit started against "
                                   f"{fingerprint}; refusing to mix the two (another version, seed or configuration)")
        problem, pull = self.problem(partition)
        if not isinstance(pulls, list) or not all(isinstance(p, list) and len(p) == 3 for p in pulls):
            raise ParameterError("pulls must be a list of [group, arm, step] triples")
        out = []
        for g, arm, step in pulls:
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (g, arm, step)) or step < 0:
                raise ParameterError(f"group, arm and step must be integers (step >= 0), got {[g, arm, step]}")
            out.append(pull(g, arm, step))
        return {"rewards": out}

    def _user(self, user) -> int:
        n = self.rho.shape[0]
        try:
            u = int(user)
        except (TypeError, ValueError):
            raise ParameterError(f"user must be an integer in [0, {n - 1}], got {user!r}") from None
        if not 0 <= u < n:
            raise ParameterError(f"user must be an integer in [0, {n - 1}], got {user!r}")
        return u

    def recommend(self, user, *, k=10) -> dict:
        """The answer of ``GET /recommend``: the user's ``k`` most probable items under the policy.

        Parameters
        ----------
        user : int
            In 0..M-1.
        k : int
            In 1..I.

        Returns
        -------
        dict
            ``user``, ``items`` (by decreasing probability, ties by index) and their ``probs``.

        Examples
        --------
        >>> toy_service().recommend(2, k=2)
        {'user': 2, 'items': [0, 1], 'probs': [1.0, 0.0]}
        """
        if self.probs.ndim != 2:
            raise ParameterError("/recommend serves context-free policies only")
        u, k = self._user(user), int(k)
        if not 1 <= k <= self.probs.shape[1]:
            raise ParameterError(f"k must be in [1, {self.probs.shape[1]}], got {k}")
        order = np.argsort(-self.probs[u], kind="stable")[:k]
        return {"user": u, "items": order.tolist(), "probs": self.probs[u, order].tolist()}

    def feedback(self, user, items, key=None) -> dict:
        """The answer of ``POST /feedback``: a click, Bernoulli(ρ^user(a)), per shown item.

        Parameters
        ----------
        user : int
            In 0..M-1.
        items : list of int
            Item indices in 0..I-1.
        key : int, optional
            Keys the draws (seed, user, key); None draws from the service's own stream.

        Returns
        -------
        dict
            ``user``, ``items`` and ``rewards`` (0 or 1 per item).

        Examples
        --------
        >>> toy_service().feedback(0, [0, 1], key=5)
        {'user': 0, 'items': [0, 1], 'rewards': [1, 0]}
        """
        if self.rho.ndim != 2:
            raise ParameterError("/feedback serves context-free environments only")
        u = self._user(user)
        a = np.asarray(items)
        if a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer) \
                or a.min() < 0 or a.max() >= self.rho.shape[1]:
            raise ParameterError(f"items must be a non-empty list of item indices in [0, {self.rho.shape[1] - 1}]")
        if key is None:
            with self._lock:
                draws = self._feedback_rng.random(a.size)
        else:
            seq = np.random.SeedSequence(self.seed, spawn_key=(_FEEDBACK_KEY, u, int(key)))
            draws = np.random.default_rng(seq).random(a.size)
        clicks = (draws < self.rho[u, a]).astype(int)
        return {"user": u, "items": a.tolist(), "rewards": clicks.tolist()}

    def should_fail(self) -> bool:
        """Whether this ``/pull`` request is answered with HTTP 503 (every ``fail_every``-th).

        Returns
        -------
        bool

        Examples
        --------
        >>> service = toy_service(); service.fail_every = 3
        >>> [service.should_fail() for _ in range(6)]
        [False, False, True, False, False, True]
        """
        if not self.fail_every:
            return False
        with self._lock:
            self._n_pull_requests += 1
            return self._n_pull_requests % self.fail_every == 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One segment per answer, sent at once: a header/body split meets the peer's delayed ACK
    # under Nagle's algorithm and costs ~40 ms per request.
    disable_nagle_algorithm = True
    wbufsize = 1 << 16
    service: SimulatedService
    quiet = True

    def _send(self, status: int, payload: dict) -> None:
        body = json.dumps(payload, allow_nan=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _dispatch(self, fn, *args, **kwargs) -> None:
        try:
            self._send(200, fn(*args, **kwargs))
        except FingerprintError as exc:
            self._send(409, {"error": str(exc), "fingerprint": self.service.fingerprint})
        except (ValueError, TypeError, KeyError) as exc:
            self._send(400, {"error": str(exc)})

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        url = urllib.parse.urlsplit(self.path)
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
        s = self.service
        routes = {"/info": lambda: s.info(), "/groups": lambda: s.groups(q.get("partition")),
                  "/truth": lambda: s.truth(q.get("partition")),
                  "/recommend": lambda: s.recommend(q.get("user"), k=q.get("k", 10))}
        if url.path not in routes:
            self._send(404, {"error": f"unknown path {url.path}; GET {', '.join(routes)} or POST /pull, /feedback"})
            return
        self._dispatch(routes[url.path])

    def do_POST(self) -> None:  # noqa: N802
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(400, {"error": "the body must be JSON"})
            return
        if not isinstance(body, dict):
            self._send(400, {"error": "the body must be a JSON object"})
            return
        s = self.service
        if url.path == "/pull":
            if s.should_fail():
                self._send(503, {"error": "injected fault (fail_every)"})
                return
            self._dispatch(s.pull, body.get("partition"), body.get("pulls"), body.get("fingerprint"))
        elif url.path == "/feedback":
            self._dispatch(s.feedback, body.get("user"), body.get("items"), body.get("key"))
        else:
            self._send(404, {"error": f"unknown path {url.path}; POST /pull or /feedback"})

    def log_message(self, format, *args) -> None:  # noqa: A002
        if not self.quiet:
            super().log_message(format, *args)


class _Server(ThreadingHTTPServer):
    """The service's server: a client that disconnects mid-answer is routine and prints no traceback."""

    daemon_threads = True
    quiet = True

    def handle_error(self, request, client_address) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):      # broken pipe, reset, aborted
            if not self.quiet:
                print(f"client {client_address[0]}:{client_address[1]} disconnected ({type(exc).__name__})",
                      file=sys.stderr)
            return
        super().handle_error(request, client_address)


def make_server(service: SimulatedService, port: int = 0, *, quiet: bool = True) -> ThreadingHTTPServer:
    """A threading HTTP server for ``service`` on 127.0.0.1:``port``, not yet serving.

    Call ``serve_forever()`` (e.g. in a thread), then ``shutdown()`` and ``server_close()``;
    :func:`start_service` does it for you.

    Parameters
    ----------
    service : SimulatedService
        What to serve.
    port : int
        0 takes a free one (``server.server_address[1]``).
    quiet : bool
        Do not log each request to stderr.

    Returns
    -------
    http.server.ThreadingHTTPServer

    Raises
    ------
    OSError
        If the port is taken.

    Examples
    --------
    >>> server = make_server(toy_service()); server.server_address[0]
    '127.0.0.1'
    >>> server.server_close()
    """
    handler = type("ServiceHandler", (_Handler,), {"service": service, "quiet": quiet})
    server = _Server((LOOPBACK, int(port)), handler)
    server.quiet = quiet
    return server


def toy_service(*, rng: int = 7) -> "SimulatedService":
    """The toy envy problem (:func:`ocef.datasets.make_toy_envy`, groups ``A`` and ``B``) as a
    :class:`SimulatedService` with one partition, ``"groups"``. Walkthrough: docs/guide/envy.md.

    Parameters
    ----------
    rng : int
        The service's seed.

    Returns
    -------
    SimulatedService

    Examples
    --------
    >>> toy_service().info()["partitions"]
    ['groups']
    """
    from ocef.datasets import make_toy_envy
    from ocef.envy.audit import AuditProblem

    rho, probs, labels = make_toy_envy()
    problem = AuditProblem(rho, probs, labels, group_names=["A", "B"])
    return SimulatedService(lambda partition: problem, ["groups"], rng=rng, rho=rho, probs=probs)


class RunningService:
    """A service served in a background thread (:func:`start_service`); closes on exiting a ``with``.

    Parameters
    ----------
    server : http.server.ThreadingHTTPServer
        Serving (:func:`make_server`).

    Examples
    --------
    >>> with start_service() as running: running.client.info()["seed"]
    7
    """

    def __init__(self, server: ThreadingHTTPServer):
        self.server = server
        self.url = f"http://{LOOPBACK}:{server.server_address[1]}"
        self.client = ServiceClient(self.url)

    def close(self) -> None:
        """Close the client, stop serving and release the port.

        Examples
        --------
        >>> start_service().close()
        """
        self.client.close()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "RunningService":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start_service(service: "SimulatedService | None" = None, port: int = 0) -> RunningService:
    """Serve ``service`` (default: :func:`toy_service`) on 127.0.0.1:``port`` in a daemon thread.

    Parameters
    ----------
    service : SimulatedService, optional
        What to serve; default the toy service.
    port : int
        0 takes a free one.

    Returns
    -------
    RunningService
        ``url``, ``client`` and ``close()``.

    Examples
    --------
    >>> with start_service() as running: running.client.groups()["sizes"]
    [2, 2]
    """
    server = make_server(toy_service() if service is None else service, port)
    threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()   # poll every 10 ms
    return RunningService(server)


# ====================================================================== client
class ServiceClient:
    """Client of the service at ``url`` (``http://host:port``) with retries and backoff.

    Transient failures (connection refused or reset, timeout, HTTP 429/502/503/504) are retried
    (:meth:`request`), then :class:`ServiceError` is raised. ``info``, ``fingerprint``, ``groups``
    and ``truth`` check the answers (DataError).

    Parameters
    ----------
    url : str
        ``http://host:port`` of the service.
    timeout : float
        Seconds to wait for one answer.
    retries : int
        Retries of a transient failure.
    backoff : float
        First wait in seconds, doubled at each retry.
    max_wait : float
        Longest wait between two attempts.

    Examples
    --------
    >>> with start_service() as running: running.client.fingerprint()["seed"], running.client.n_retries
    (7, 0)
    """

    def __init__(self, url: str, *, timeout: float = 30.0, retries: int = 8, backoff: float = 0.05,
                 max_wait: float = 5.0):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ParameterError(f"--url must look like http://127.0.0.1:PORT, got {url!r}")
        self.url = url
        self.host, self.port = parts.hostname, parts.port or 80
        self.timeout, self.retries, self.backoff, self.max_wait = timeout, int(retries), backoff, max_wait
        self._conn: http.client.HTTPConnection | None = None
        self.n_retries = 0

    def close(self) -> None:
        """Close the connection kept open between requests; the next request opens a new one.

        Examples
        --------
        >>> with start_service() as running: running.client.close(); running.client.groups()["n_groups"]
        2
        """
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, payload=None) -> dict:
        """Send one request and return the JSON object answered, retrying transient failures.

        A connection error, a timeout or HTTP 429/502/503/504 is retried up to ``retries`` times after
        ``backoff · 2^(attempt-1)`` seconds (at most ``max_wait``), counted in ``n_retries``.

        Parameters
        ----------
        method : {"GET", "POST"}
            The HTTP method.
        path : str
            With its query, e.g. ``"/groups?partition=P"``.
        payload : object, optional
            JSON body of a POST.

        Returns
        -------
        dict

        Raises
        ------
        ServiceError
            When every attempt failed transiently, or the answer is not JSON.
        FingerprintError
            On HTTP 409 (the service is not the one the audit started with).
        DataError
            On another error status (the service's message is included) or an answer that is
            not a JSON object.

        Examples
        --------
        >>> service = toy_service(); service.fail_every = 2           # every 2nd /pull fails
        >>> with start_service(service) as running:
        ...     [running.client.request("POST", "/pull", {"pulls": [[0, 1, 3]]}) for _ in range(2)], running.client.n_retries
        ([{'rewards': [1.0]}, {'rewards': [1.0]}], 1)
        """
        body = None if payload is None else json.dumps(payload).encode()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        last = None
        for attempt in range(self.retries + 1):
            if attempt:
                self.n_retries += 1
                time.sleep(min(self.backoff * 2 ** (attempt - 1), self.max_wait))
            try:
                if self._conn is None:
                    self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                self._conn.request(method, path, body=body, headers=headers)
                resp = self._conn.getresponse()
                data = resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                last = f"{type(exc).__name__}: {exc}"
                continue
            if status in TRANSIENT_STATUS:
                last = f"HTTP {status}"
                continue
            try:
                answer = json.loads(data)
            except ValueError:       # issue 28: a 200 answer that is not JSON is malformed (exit 2), not unreachable
                raise (DataError if status == 200 else ServiceError)(
                    f"{method} {self.url}{path}: HTTP {status}, the service's answer is not JSON: {data[:80]!r}; "
                    f"is this an OCEF service?") from None
            if status != 200:       # another server may answer any JSON: only ours is a dict with "error"
                message = answer.get("error", answer) if isinstance(answer, dict) else answer
                cls = FingerprintError if status == 409 else DataError
                error = cls(f"{method} {self.url}{path}: HTTP {status}: {message}")
                error.status = status
                raise error
            if not isinstance(answer, dict):
                raise DataError(f"{method} {self.url}{path}: the service answered {type(answer).__name__} "
                                f"{str(answer)[:80]!r}, not a JSON object")
            return answer
        raise ServiceError(f"{method} {self.url}{path} failed after {self.retries + 1} attempts ({last})")

    def info(self) -> dict:
        """``GET /info`` (:meth:`SimulatedService.info`), checked: ``seed`` (an int ≥ 0) and ``version``.

        Returns
        -------
        dict

        Raises
        ------
        DataError
            When ``seed`` or ``version`` is missing, or ``seed`` is not an integer ≥ 0.

        Examples
        --------
        >>> with start_service() as running: running.client.info()["default_partition"]
        'groups'
        """
        info = _require(self.request("GET", "/info"), ("seed", "version"), f"GET {self.url}/info")
        seed = info["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise DataError(f"GET {self.url}/info: seed must be an integer >= 0, got {seed!r}")
        return info

    def fingerprint(self) -> dict | None:
        """The service's fingerprint (``version``, ``seed``, ``configuration``), None if it publishes none.

        Returns
        -------
        dict or None

        Raises
        ------
        DataError
            When the fingerprint lacks one of the three keys.

        Examples
        --------
        >>> with start_service() as running: sorted(running.client.fingerprint())
        ['configuration', 'seed', 'version']
        """
        fp = self.info().get("fingerprint")
        if fp is None:
            return None
        return _require(fp, ("version", "seed", "configuration"), f"GET {self.url}/info: fingerprint")

    def groups(self, partition=None) -> dict:
        """``GET /groups``, checked: G ≥ 2 and one size ≥ 1 (and name, if any) per group.

        Parameters
        ----------
        partition : str, optional
            None is the service's default.

        Returns
        -------
        dict
            ``n_groups``, ``sizes`` and, if the service gives them, ``names``.

        Raises
        ------
        DataError
            When ``n_groups`` or ``sizes`` is missing or invalid, or the service refuses the
            partition.

        Examples
        --------
        >>> with start_service() as running: running.client.groups("groups")
        {'n_groups': 2, 'sizes': [2, 2], 'names': ['A', 'B']}
        """
        answer = _require(self.request("GET", "/groups" + _query(partition)), ("n_groups", "sizes"),
                          f"GET {self.url}/groups")
        n = answer["n_groups"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise DataError(f"GET {self.url}/groups: n_groups must be an integer >= 2, got {n!r}")
        sizes = answer["sizes"]
        if not isinstance(sizes, list) or len(sizes) != n or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in sizes):
            raise DataError(f"GET {self.url}/groups: sizes must be {n} integers >= 1, got {str(sizes)[:80]}")
        names = answer.get("names")
        if names is not None and (not isinstance(names, list) or len(names) != n):
            raise DataError(f"GET {self.url}/groups: names must be a list of {n} names, got {str(names)[:80]}")
        return answer

    def truth(self, partition=None) -> dict:
        """``GET /truth``, checked: ``arm_means`` a G × G table of numbers in [0, 1] (a null, NaN or
        out-of-range mean is refused, never turned into a cost).

        Parameters
        ----------
        partition : str, optional
            None is the service's default.

        Returns
        -------
        dict
            ``arm_means`` and whatever else the service sends (the simulator adds ``true_envy``).

        Raises
        ------
        DataError
            When ``arm_means`` is missing or holds a value outside [0, 1].

        Examples
        --------
        >>> with start_service() as running: len(running.client.truth()["arm_means"])
        2
        """
        answer = _require(self.request("GET", "/truth" + _query(partition)), ("arm_means",), f"GET {self.url}/truth")
        means = answer["arm_means"]
        ok = isinstance(means, list) and all(isinstance(row, list) and len(row) == len(means) for row in means) and all(
            _is_unit(v) for row in means for v in row)              # issue 28: a ragged table ended in numpy
        if not ok:
            raise DataError(f"GET {self.url}/truth: arm_means must be a square table of numbers in [0, 1] "
                            f"(no null or NaN), got {str(means)[:80]}")
        return answer

    def puller(self, partition=None, fingerprint: dict | None = None) -> "RemotePull":
        """The PULL-ARM of this service as a callable for :func:`ocef.envy.live.audit_live`.

        Parameters
        ----------
        partition : str, optional
            None is the service's default.
        fingerprint : dict, optional
            :meth:`fingerprint` at the start of the audit; the service refuses pulls once it changes.

        Returns
        -------
        RemotePull

        Examples
        --------
        >>> with start_service() as running: running.client.puller("groups")(0, 1, 3)
        1.0
        """
        return RemotePull(self, partition, fingerprint)


def _require(answer: dict, keys, where: str) -> dict:
    """``answer`` if it is a dict holding every one of ``keys``, else a DataError naming what lacks."""
    if not isinstance(answer, dict):
        raise DataError(f"{where}: expected a JSON object, got {type(answer).__name__}")
    missing = [k for k in keys if k not in answer]
    if missing:
        raise DataError(f"{where}: the answer lacks {', '.join(map(repr, missing))} "
                        f"(it has {', '.join(map(repr, list(answer)[:8])) or 'no key'}); is this an OCEF service?")
    return answer


def _is_unit(v) -> bool:
    """A JSON reward or mean: an int or float in [0, 1] (no bool, null, NaN, huge integer)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, int):
        return v in (0, 1)
    return 0.0 <= v <= 1.0


def _query(partition) -> str:
    return "" if partition is None else "?" + urllib.parse.urlencode({"partition": partition})


class RemotePull:
    """``pull(group, arm, step)`` and ``pull_many(keys)`` over HTTP, for :func:`ocef.envy.live.audit_live`.

    Parameters
    ----------
    client : ServiceClient
        The connection to the service.
    partition : str, optional
        None is the service's default.
    fingerprint : dict, optional
        :meth:`ServiceClient.fingerprint` at the start of the audit.

    Examples
    --------
    >>> with start_service() as running: RemotePull(running.client, "groups")(1, 0, 0)
    0.5
    """

    def __init__(self, client: ServiceClient, partition=None, fingerprint: dict | None = None):
        self.client, self.partition = client, partition
        self.fingerprint = None if fingerprint is None else fingerprint_id(fingerprint)

    def pull_many(self, keys) -> list[float]:
        """All the pulls of one synchronous step in one ``POST /pull`` (PULL-ARM, Algorithm 2).

        Parameters
        ----------
        keys : iterable of (int, int, int)
            ``(group, arm, step)`` triples, as :meth:`SimulatedService.pull`.

        Returns
        -------
        list of float
            One group-average reward in [0, 1] per triple, in order.

        Raises
        ------
        DataError
            When the service answers another number of rewards or a reward outside [0, 1],
            refuses the pulls, or has changed fingerprint (:class:`FingerprintError`).

        Examples
        --------
        >>> with start_service() as running: running.client.puller("groups").pull_many([(0, 0, 0), (0, 1, 1), (1, 1, 0)])
        [0.0, 1.0, 0.5]
        """
        pulls = [[int(g), int(a), int(t)] for g, a, t in keys]
        payload = {"partition": self.partition, "pulls": pulls}
        if self.fingerprint is not None:
            payload["fingerprint"] = self.fingerprint
        where = f"POST {self.client.url}/pull"
        rewards = _require(self.client.request("POST", "/pull", payload), ("rewards",), where)["rewards"]
        if not isinstance(rewards, list) or len(rewards) != len(pulls):
            raise DataError(f"{where}: expected {len(pulls)} rewards, got {str(rewards)[:80]}")
        bad = [r for r in rewards if not _is_unit(r)]
        if bad:
            raise DataError(f"{where}: rewards must be numbers in [0, 1], got {str(bad[0])[:40]}")
        return [float(r) for r in rewards]

    def __call__(self, group: int, arm: int, step: int) -> float:
        return self.pull_many([(group, arm, step)])[0]
