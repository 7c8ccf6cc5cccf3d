"""Library calls Dynamo cannot trace, measured on torch 2.13.0 (generated: do not edit).

Written by ``python bench/skiplist/derive.py``, which compiles one call of each candidate on the CPU and
keeps those that break the graph and that no other rule reports. Each name maps to the GB id Dynamo
logged and to what torch's trace rules say of the function: ``skipped`` (marked skipped, the break is at
the call) or ``inlined`` (Dynamo inlines it and breaks inside). DYN004 reads this table.
"""

MEASURED_ON = "2.13.0"

SKIPPED_LIBRARY_CALLS: dict[str, tuple[str, str]] = {
    "abc.get_cache_token": ("GB0007", "skipped"),
    "array.array": ("GB0147", "inlined"),
    "base64.b64encode": ("GB0007", "inlined"),
    "binascii.crc32": ("GB0007", "skipped"),
    "binascii.hexlify": ("GB0007", "skipped"),
    "bisect.bisect_left": ("GB0007", "skipped"),
    "bisect.insort": ("GB0007", "skipped"),
    "decimal.Decimal": ("GB0147", "inlined"),
    "fnmatch.fnmatch": ("GB0059", "inlined"),
    "gc.collect": ("GB0007", "skipped"),
    "gc.is_tracked": ("GB0007", "skipped"),
    "glob.glob": ("GB0007", "inlined"),
    "hashlib.md5": ("GB0007", "skipped"),
    "hashlib.sha256": ("GB0007", "skipped"),
    "heapq.heappush": ("GB0007", "skipped"),
    "heapq.nlargest": ("GB0007", "inlined"),
    "importlib.import_module": ("GB0007", "skipped"),
    "inspect.currentframe": ("GB0007", "inlined"),
    "inspect.getsource": ("GB0007", "inlined"),
    "inspect.stack": ("GB0007", "inlined"),
    "json.dumps": ("GB0156", "inlined"),
    "json.loads": ("GB0156", "inlined"),
    "linecache.getline": ("GB0007", "skipped"),
    "locale.getpreferredencoding": ("GB0007", "inlined"),
    "marshal.dumps": ("GB0007", "skipped"),
    "networkx.Graph": ("GB0007", "skipped"),
    "networkx.path_graph": ("GB0007", "skipped"),
    "opt_einsum.contract": ("GB0007", "inlined"),
    "os.cpu_count": ("GB0007", "skipped"),
    "os.getcwd": ("GB0007", "skipped"),
    "os.getpid": ("GB0007", "skipped"),
    "os.listdir": ("GB0007", "skipped"),
    "os.path.exists": ("GB0007", "inlined"),
    "os.path.isfile": ("GB0007", "inlined"),
    "os.stat": ("GB0007", "skipped"),
    "pickle.dumps": ("GB0007", "skipped"),
    "pickle.loads": ("GB0007", "skipped"),
    "pprint.pformat": ("GB0156", "inlined"),
    "re.finditer": ("GB0007", "skipped"),
    "resource.getrusage": ("GB0007", "skipped"),
    "scipy.linalg.expm": ("GB0156", "inlined"),
    "scipy.ndimage.binary_dilation": ("GB0033", "inlined"),
    "scipy.ndimage.distance_transform_edt": ("GB0007", "inlined"),
    "scipy.ndimage.gaussian_filter": ("GB0157", "inlined"),
    "scipy.ndimage.generate_binary_structure": ("GB0290", "inlined"),
    "scipy.optimize.LinearConstraint": ("GB0007", "inlined"),
    "scipy.optimize.linear_sum_assignment": ("GB0007", "skipped"),
    "scipy.signal.convolve": ("GB0157", "inlined"),
    "scipy.sparse.coo_matrix": ("GB0036", "inlined"),
    "scipy.sparse.csgraph.connected_components": ("GB0033", "skipped"),
    "scipy.sparse.csr_matrix": ("GB0033", "inlined"),
    "scipy.spatial.distance.cdist": ("GB0007", "inlined"),
    "scipy.special.erf": ("GB0156", "skipped"),
    "scipy.special.gammaln": ("GB0156", "skipped"),
    "scipy.stats.entropy": ("GB0142", "inlined"),
    "shutil.which": ("GB0007", "inlined"),
    "signal.getsignal": ("GB0007", "inlined"),
    "socket.gethostname": ("GB0007", "skipped"),
    "statistics.mean": ("GB0134", "inlined"),
    "sys._getframe": ("GB0007", "skipped"),
    "sys.getrefcount": ("GB0007", "skipped"),
    "sys.getsizeof": ("GB0007", "skipped"),
    "tabulate.tabulate": ("GB0007", "skipped"),
    "traceback.extract_stack": ("GB0007", "inlined"),
    "traceback.format_stack": ("GB0007", "inlined"),
    "types.SimpleNamespace": ("GB0147", "inlined"),
    "unicodedata.normalize": ("GB0007", "skipped"),
    "uuid.uuid4": ("GB0007", "inlined"),
    "zlib.adler32": ("GB0007", "skipped"),
    "zlib.compress": ("GB0007", "skipped"),
    "zlib.crc32": ("GB0007", "skipped"),
}

# Packages whose measured calls break (at least 8 of them, and three in four or more): any call
# into them is taken to break, named by the GB id their calls logged most often, but for the calls of
# theirs measured to trace (``TRACED_LIBRARY_CALLS``).
SKIPPED_LIBRARY_PACKAGES: dict[str, str] = {
    "scipy": "GB0007",
}

# The measured calls of those packages that trace: pure-Python helpers (a type test, a class holding bounds).
TRACED_LIBRARY_CALLS: frozenset[str] = frozenset({
    "scipy.optimize.Bounds",
    "scipy.optimize.NonlinearConstraint",
    "scipy.sparse.issparse",
})
