"""The fio options iolab knows, and fio's own rules for reading their values.

Three kinds of names appear in a fio job file or command line:

- **modelled** job options (``MODELLED``): iolab reads them into :class:`~iolab.fio.FioJob`
  fields (rw, bs, iodepth, numjobs, ...);
- **known** job options (``KNOWN``): fio documents them but iolab does not model them; they
  are accepted, kept in ``FioJob.options`` and listed in ``FioJob.ignored``;
- **program** options (``PROGRAM``): fio's command-line switches (``--output-format``,
  ``--eta``, ...), which are not job options at all.

Anything else is not a fio option and is an error that names the nearest known option.

Values follow fio's rules, not iolab's (docs/units.md, docs/fio.md). Sizes and integers take fio's
suffixes, whose meaning depends on ``kb_base`` as fio 3.x actually parses them: with the
default ``kb_base=1024``, ``k``/``kb``/``K``/``KB`` (and ``Ki``) mean 1024 while ``KiB``
means 1000; with ``kb_base=1000`` the meanings swap. (fio's HOWTO also lists ``ki``/``mi``
as the swapped forms; fio itself only swaps the three-letter ``kib``/``mib``/... forms, and
iolab follows fio.) Times are seconds unless suffixed (``us``, ``ms``, ``s``, ``m``, ``h``,
``d``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import msgspec

from ..errors import SchemaError, UnitError, nearest

__all__ = [
    "OptionSpec",
    "MODELLED_OPTIONS",
    "VARIABLE",
    "MODELLED",
    "KNOWN",
    "FLAGS",
    "ALIASES",
    "PROGRAM",
    "PROGRAM_FLAGS",
    "SYNC_ENGINES",
    "ENGINES",
    "NON_STORAGE_ENGINES",
    "RW_MODES",
    "machine_keywords",
    "LISTS",
    "merge_value",
    "canonical",
    "is_job_option",
    "takes_value",
    "parse_fio_int",
    "parse_fio_size",
    "parse_fio_time",
    "parse_fio_bool",
    "check_option",
    "expand_variables",
]


class OptionSpec(msgspec.Struct, frozen=True):
    """One job option iolab models: fio's name, the value type, and what it means to iolab.

    ``kind`` is one of ``str``, ``int`` (fio integer with size suffixes), ``size`` (bytes),
    ``sizes`` (fio's ``read,write,trim`` list of sizes), ``ints`` (same list form of
    integers), ``time`` (seconds), ``bool`` (0/1) or ``flag`` (set by its presence).
    """

    name: str
    kind: str
    meaning: str


_MODELLED = [
    OptionSpec("name", "str", "job name (the section name in a job file)"),
    OptionSpec("description", "str", "free text"),
    OptionSpec("kb_base", "int", "1024 (default) or 1000: how size suffixes are read"),
    OptionSpec("rw", "str", "IO pattern: read, write, randread, randwrite, rw, randrw, trim, ..."),
    OptionSpec("rwmixread", "int", "percent of reads in a mixed pattern (default 50)"),
    OptionSpec("rwmixwrite", "int", "percent of writes in a mixed pattern"),
    OptionSpec("bs", "sizes", "block size in bytes: read[,write[,trim]]"),
    OptionSpec("bs_is_seq_rand", "bool", "1: bs (and bssplit, bsrange) give sequential,random sizes, not read,write"),
    OptionSpec("iodepth", "int", "IOs kept in flight per job (asynchronous engines)"),
    OptionSpec("numjobs", "int", "identical clones of the job"),
    OptionSpec("ioengine", "str", "how IO is issued (psync, libaio, io_uring, ...)"),
    OptionSpec("direct", "bool", "1 = O_DIRECT, bypass the page cache"),
    OptionSpec("buffered", "bool", "the opposite of direct"),
    OptionSpec("size", "size", "bytes of IO per job (its file set); a percentage is not modelled"),
    OptionSpec("io_size", "size", "bytes of IO per job before it stops (default: size); a percentage is not modelled"),
    OptionSpec("number_ios", "int", "IOs per job after which it stops, if nothing stopped it before (0: no limit)"),
    OptionSpec("loops", "int", "times the job repeats its IO (default 1)"),
    OptionSpec("filesize", "size", "size of each file (a range lo-hi is read as its midpoint)"),
    OptionSpec("nrfiles", "int", "files per job"),
    OptionSpec("runtime", "time", "seconds the job runs at most"),
    OptionSpec("ramp_time", "time", "seconds run before statistics are recorded"),
    OptionSpec("time_based", "flag", "run for the whole runtime, looping over the files"),
    OptionSpec("rate_iops", "ints", "IOPS cap per job: read[,write[,trim]]"),
    OptionSpec("rate", "sizes", "bandwidth cap per job in bytes/s: read[,write[,trim]]"),
    OptionSpec("rate_process", "str", "linear (evenly spaced) or poisson arrivals under rate_iops"),
    OptionSpec("thinktime", "time", "stall after every thinktime_blocks IOs, once they complete (bare number: µs)"),
    OptionSpec("thinktime_blocks", "int", "IOs issued between stalls (default 1); caps the IOs in flight"),
    OptionSpec("thinktime_spin", "time", "the part of the stall spent spinning on a core (bare number: µs)"),
    OptionSpec("thinktime_blocks_type", "str", "complete (default) or issue: which IOs count towards a stall"),
    OptionSpec("directory", "str", "directory where the job's files are created"),
    OptionSpec("filename", "str", "file or device name(s), ':'-separated"),
    OptionSpec("stonewall", "flag", "wait for the jobs before it to finish, then start"),
    OptionSpec("group_reporting", "flag", "report the jobs of a group as one"),
]
MODELLED: dict[str, OptionSpec] = {o.name: o for o in _MODELLED}

# fio's aliases, mapped to the canonical name that iolab keys FioJob.options by.
ALIASES: dict[str, str] = {
    "readwrite": "rw", "blocksize": "bs", "timeout": "runtime", "wait_for_previous": "stonewall",
    "blocksize_range": "bsrange", "blockalign": "ba", "blocksize_unaligned": "bs_unaligned",
    "iomem": "mem", "iomem_align": "mem_align", "io_limit": "io_size", "fill_fs": "fill_device",
    "iodepth_batch_submit": "iodepth_batch", "iodepth_batch_complete": "iodepth_batch_complete_min",
    "ss": "steadystate", "ss_dur": "steadystate_duration", "ss_ramp": "steadystate_ramp_time",
    "disable_bw": "disable_bw_measurement", "proto": "protocol",
    "fileoffset": "offset", "nr_files": "nrfiles", "ratemin": "rate_min", "ratecycle": "rate_cycle",
    "data_placement": "dataplacement", "log_unix_epoch": "log_alternate_epoch",
    "ss_interval": "steadystate_check_interval", "chunck_size": "chunk_size",
}

# Job options fio documents (fio 3.x HOWTO and ``fio --cmdhelp=all``) that iolab does not model.
_KNOWN_TEXT = """
allow_file_create allow_mounted_write allrandrepeat arguments atomic ba bindname
block_error_percentiles bs_is_seq_rand bs_unaligned bsrange bssplit buffer_compress_chunk
buffer_compress_percentage buffer_pattern busy_poll busy_wait_polling bwavgtime cgroup
cgroup_nodelete cgroup_weight chunk_size clat_percentiles clientname clocksource clustername
cmd_type cmdprio cmdprio_bssplit cmdprio_class cmdprio_percentage conf cont continue_on_error
cpuchunks cpuload cpumask cpumode cpus_allowed cpus_allowed_policy create_fsync create_on_open
create_only create_serialize cuda_io dataplacement dedupe_global dedupe_mode dedupe_percentage
dedupe_working_set_percentage direct_write_to_pmem disable_bw_measurement disable_clat
disable_lat disable_slat disk_util do_verify donorname end_fsync error_dump exec_postrun
exec_prerun exit_on_io_done exit_what exitall exitall_on_error experimental_verify
fadvise_hint fallocate fdatasync fdp fdp_pli fdp_pli_select file_append file_service_type
filename_format fill_device fixedbufs flow flow_id flow_sleep force_async fsync fsync_on_close
gid gpu_dev_ids grace_time gtod_cpu gtod_reduce hdfsdirectory hipri hipri_percentage hostname
http_host http_mode http_pass http_s3_key http_s3_keyid http_s3_region
http_s3_sse_customer_algorithm http_s3_sse_customer_key http_s3_storage_class
http_swift_auth_token http_user http_verbose https hugepage-size ignore_error
ignore_zone_limits inplace interface invalidate io_size io_submit_mode iodepth_batch
iodepth_batch_complete_max iodepth_batch_complete_min iodepth_low iopsavgtime ioscheduler
job_max_open_zones job_start_clock_id lat_percentiles latency_percentile latency_run
latency_target latency_window listen lockfile lockmem log_alternate_epoch
log_alternate_epoch_clock_id log_avg_msec log_compression log_compression_cpus log_entries
log_hist_coarseness log_hist_msec log_issue_time log_max_value log_offset log_prio
log_store_compressed log_unix_epoch loops max_latency max_open_zones mem mem_align
merge_blktrace_file merge_blktrace_iters merge_blktrace_scalars mss namenode new_group nfs_url
nice nodelay nonvectored norandommap nowait num_range numa_cpu_nodes numa_mem_policy
number_ios object_class offset offset_align offset_increment opendir openfiles overwrite
per_job_logs percentage_random percentile_list pingpong plid_select plids pool port pre_read
prio prioclass profile program protocol random_distribution random_generator randrepeat
randseed rate rate_cycle rate_ignore_thinktime rate_iops_min rate_min rbdname read_beyond_wp
read_iolog read_iolog_chunked readfua refill_buffers registerfiles replay_align
replay_no_stall replay_redirect replay_scale replay_skip replay_time_scale rw_sequencer
rwmixcycle scramble_buffers serialize_overlap serverip sg_write_mode significant_figures
skip_bad slat_percentiles softrandommap spr_num_regions spr_op sprandom sqthread_poll
sqthread_poll_cpu startdelay stat_type stats std_redirect steadystate steadystate_duration
steadystate_ramp_time stream_id sync sync_file_range thinkcycles thinktime thinktime_blocks
thinktime_blocks_type thinktime_iotime thinktime_spin thread touch_objects trim_backlog
trim_backlog_batch trim_percentage trim_verify_zero ttl uid unified_rw_reporting
unique_filename unit_base unlink unlink_each_loop uri userspace_reap verb verify verify_async
verify_async_cpus verify_backlog verify_backlog_batch verify_dump verify_fatal
verify_interval verify_offset verify_only verify_pattern verify_state_load verify_state_save
verify_write_sequence wait_for window_size write_barrier write_bw_log write_hint
write_hist_log write_iolog write_iops_log write_lat_log writefua xnvme_admin xnvme_async
xnvme_dev_nsid xnvme_iovec xnvme_sync zero_buffers zone_reset_frequency zone_reset_threshold
zonecapacity zonemode zonerange zonesize zoneskip
comm dp_scheme end_syncfs filetype flow_watermark gpu_dev_id log_window_value
percentage_sequential priohint ramp_size random_sequence_stride recover_zbd_write_error spr_cs
steadystate_check_interval verify_header_seed verify_pattern_interval verify_policy verifysort
verifysort_nr write_zone_remainder
"""

# Options of fio's ioengines and profiles (fio's engines/ and profiles/ directories): fio
# accepts them in any section, whatever the section's engine.
_ENGINE_TEXT = """
apptag apptag_mask block brick cdb_len deac device-names dir dummy hdfs_use_direct
http_object_mode http_s3_security_token initiator large-block-op-kbytes libaio_vectored
libblkio_driver libblkio_force_enable_completion_eventfd libblkio_num_entries libblkio_path
libblkio_pre_connect_props libblkio_pre_start_props libblkio_queue_size libblkio_vectored
libblkio_wait_mode libblkio_write_zeroes_on_trim load md_per_io_size no_completion_thread
numruns pi_act pi_chk prep rbd_encryption_format rbd_encryption_passphrase
read-req-num-512-blocks read_mode rocm_io single-instance single_instance svcl test-duration
thp threads threads-per-queue uncached verify_bytchk verify_mode volume write_mode xnvme_be
xnvme_dev_subnqn xnvme_mem
"""
KNOWN: frozenset[str] = frozenset(_KNOWN_TEXT.split() + _ENGINE_TEXT.split()) - set(MODELLED)

# Options set by their mere presence (fio's "str_set" type); ``opt=0`` clears them.
FLAGS: frozenset[str] = frozenset(
    "time_based stonewall group_reporting norandommap bs_unaligned zero_buffers refill_buffers "
    "fixedbufs registerfiles sqthread_poll hipri userspace_reap listen pingpong thread exitall "
    "verify_only new_group exitall_on_error".split()
    # fio also takes these without a value (a log named after the job; an empty list)
    + "write_bw_log write_lat_log write_iops_log write_hist_log cpus_allowed ignore_error "
    "log_compression_cpus numa_cpu_nodes numa_mem_policy replay_skip verify_async_cpus".split()
)

# fio's command-line switches (not job options); those in PROGRAM_FLAGS take no value.
PROGRAM: frozenset[str] = frozenset(
    "debug parse-only merge-blktrace-only output output-format bandwidth-log minimal "
    "append-terse terse-version version help cpuclock-test crctest cmdhelp enghelp showcmd "
    "readonly eta eta-interval eta-newline status-interval section alloc-size warnings-fatal "
    "max-jobs server daemonize client remote-config idle-prof inflate-log trigger-file "
    "trigger-timeout trigger trigger-remote aux-path latency-log".split()
)
PROGRAM_FLAGS: frozenset[str] = frozenset(
    "parse-only merge-blktrace-only bandwidth-log minimal append-terse version help "
    "cpuclock-test showcmd readonly warnings-fatal latency-log".split()
)

# Engines that complete each IO before issuing the next: one IO in flight per job,
# whatever iodepth says.
SYNC_ENGINES: frozenset[str] = frozenset(
    "sync psync vsync pvsync pvsync2 mmap splice net netsplice cpuio falloc ftruncate e4defrag "
    "filecreate filestat filedelete dircreate dirstat dirdelete exec http ime_psync ime_psyncv "
    "pmemblk dev-dax libpmem".split()
)
ENGINES: frozenset[str] = SYNC_ENGINES | frozenset(
    "io_uring io_uring_cmd libaio posixaio solarisaio windowsaio sg libzbc null rdma rados rbd "
    "gfapi gfapi_async libhdfs mtd ime_aio libiscsi nbd libcufile dfs nfs xnvme guasi "
    "cpp_null libblkio libhipfile page_fault "
    "librpma_apm_client librpma_apm_server librpma_gpspm_client librpma_gpspm_server".split()
)

#: engines whose IO is not storage IO (CPU burn, network, memory, no-ops, programs, file
#: metadata): their jobs are not predicted as disk IO.
NON_STORAGE_ENGINES: frozenset[str] = frozenset(
    "cpuio net netsplice null cpp_null exec page_fault rdma filecreate filestat filedelete "
    "dircreate dirstat dirdelete".split()
)

def engine_problem(text: str) -> str | None:
    """Why ``text`` is no ioengine fio has (None when it is one: a name fio knows,
    ``external:...`` or a path to an engine), naming the nearest names."""
    if text in ENGINES or text.startswith("external:") or text.startswith("/"):
        return None
    if not text.strip():
        return "an empty ioengine; name one (libaio, io_uring, psync, ...)"
    hint = nearest(text, ENGINES)
    return f"unknown ioengine {text!r}" + (f"; nearest: {', '.join(hint)}" if hint else "")


RW_MODES: dict[str, str] = {
    "read": "read", "write": "write", "trim": "trim", "randread": "randread",
    "randwrite": "randwrite", "randtrim": "randtrim", "rw": "rw", "readwrite": "rw",
    "randrw": "randrw", "trimwrite": "trimwrite", "randtrimwrite": "randtrimwrite",
}


#: options written ``read,write,trim``: an item left empty keeps the value set before
#: (``[global] bs=8k`` then ``bs=,64k`` reads with 8k), as fio does.
LISTS = frozenset({"bs", "ba", "bsrange", "rate", "rate_min", "rate_iops", "rate_iops_min", "bssplit",
                   "cmdprio_percentage", "cmdprio_class", "cmdprio"})


def merge_value(name: str, old: str | None, new: str) -> str:
    """The value of `name` after `new` is set over `old` (None: not set before)."""
    if old is None or name not in LISTS or "," not in new:
        return new
    before = old.split(",")
    before += [before[-1]] * (3 - len(before))
    items = new.split(",")
    if not any(not i.strip() for i in items):
        return new
    return ",".join(i if i.strip() else before[n] if n < 3 else i for n, i in enumerate(items))


def canonical(name: str) -> str:
    """fio's canonical name for an option name or alias (unknown names come back unchanged)."""
    return ALIASES.get(name, name)


def is_job_option(name: str) -> bool:
    """True when `name` (or an alias of it) is a fio job option, modelled or not."""
    name = canonical(name)
    return name in MODELLED or name in KNOWN


def takes_value(name: str) -> bool:
    """False for options set by their presence alone (``time_based``, ``--minimal``)."""
    name = canonical(name)
    return name not in FLAGS and name not in PROGRAM_FLAGS


_INT_RE = re.compile(r"^(?P<num>0[xX][0-9a-fA-F]+|\d+)(?P<suffix>[A-Za-z]*)$", re.ASCII)  # fio reads ASCII digits only
_POW = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_TIME_RE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<unit>[A-Za-z]*)$", re.ASCII)
# (multiplier, divisor) into seconds; dividing keeps 715us exactly 0.000715
_TIME = {"": (1, 1), "s": (1, 1), "sec": (1, 1), "ms": (1, 1000), "msec": (1, 1000), "us": (1, 10**6),
         "usec": (1, 10**6), "m": (60, 1), "min": (60, 1), "h": (3600, 1), "d": (86400, 1)}


def _whole_hint(text: str, kb_base: int = 1024) -> str:
    """The same amount as a whole number in the next smaller unit (``1.5k`` is ``1536``,
    ``1.5m`` is ``1536k``), or nothing when there is none."""
    m = re.match(r"^(\d+\.\d+)\s*([kmgtp])", text, re.IGNORECASE | re.ASCII)
    if not m:
        return ""
    amount = float(m.group(1)) * kb_base
    if not amount.is_integer():
        return ""
    smaller = "kmgtp"[max(0, "kmgtp".index(m.group(2).lower()) - 1)] if m.group(2).lower() != "k" else ""
    return f": {int(amount)}{smaller} is the same amount"


def parse_fio_int(text: str, kb_base: int = 1024) -> int:
    """Read a fio integer with an optional unit suffix, as fio does (see the module text).

    ``0x`` prefixes hexadecimal. Suffixes are case-insensitive: ``k m g t p`` with an
    optional ``b``, the IEC forms ``kib mib ...`` whose base is swapped by ``kb_base``, and
    ``b`` alone (bytes). Fractions such as ``1.5k`` are refused: fio would silently read 1.

    Raises UnitError on anything else.
    """
    raw = text
    text = text.strip()
    if text.startswith("("):
        return _arithmetic(raw, _units_in(text))
    unsigned = text.lstrip("+-")
    if _ARITH_OP.search(unsigned):
        read = _fio_prefix(unsigned, kb_base)
        if read is not None:
            raise UnitError(f"{raw!r}: fio evaluates arithmetic only in parentheses, and reads this as {read} "
                            f"(what comes before {unsigned[len(_LEADING.match(unsigned).group(0)):][:1]!r}); write "
                            f"the value, or ({unsigned})")
    text = unsigned if text.startswith("+") else text
    m = _INT_RE.match(text)
    if not m:
        if re.match(r"^\d+\.\d", text, re.ASCII):
            raise UnitError(f"{raw!r}: fio reads no fractions here (it would take {text.split('.')[0]}); "
                            f"write a whole number{_whole_hint(text, kb_base)}")
        raise UnitError(f"{raw!r} is not a fio integer/size (examples: 4096, 4k, 1m, 4KiB, 0x1000)")
    if len(m.group("num")) > _MAX_DIGITS:
        raise UnitError(f"{text[:20]!r}... ({len(m.group('num')):,} digits) is far more than fio's 64-bit integers "
                        "hold")
    num = int(m.group("num"), 0)
    suffix = m.group("suffix").lower()
    if suffix in ("", "b"):
        return num
    prefix, rest = suffix[0], suffix[1:]
    if prefix not in _POW or rest not in ("", "b", "i", "ib"):
        raise UnitError(f"{raw!r}: unknown unit {m.group('suffix')!r} (fio units: k, m, g, t, p, "
                        "with an optional B, or KiB, MiB, ...)")
    swapped = rest == "ib"  # fio swaps only the three-letter IEC forms
    base = kb_base if not swapped else (1000 if kb_base == 1024 else 1024)
    return num * base ** _POW[prefix]


#: digits past which a number cannot be a fio integer (2**64 has 20; 0x... 16 hex digits)
_MAX_DIGITS = 100
#: what bc reads: whole numbers, + - * / % ^ and parentheses
_BC = re.compile(r"^[0-9\s()+\-*/%^]+$")
_ARITH_OP = re.compile(r"[+\-*/%^]")


_LEADING = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)([A-Za-z]*)", re.ASCII)
#: a number with a size suffix inside fio's parenthesised arithmetic, as its lexer reads it
#: (k, kb: 1024; KiB: 1000; m, g, t, p alike; fractions allowed)
_IN_PARENS = re.compile(r"(\d+(?:\.\d+)?)\s*([kKmMgGtTpP])([iI]?[bB]?)(?![A-Za-z])", re.ASCII)


def _units_in(text: str) -> str:
    """``(4k*2)`` as ``(4*1024*2)``: fio's expression lexer takes k, m, g, t, p (1,024-based,
    with an optional B) and KiB, MiB ... (1,000-based) after a number."""
    def sub(m: re.Match[str]) -> str:
        iec = m.group(3).lower() == "ib"
        if m.group(3) and m.group(3).lower() not in ("b", "ib"):
            return m.group(0)
        return f"({m.group(1)}*{(1000 if iec else 1024) ** _POW[m.group(2).lower()]})"
    return _IN_PARENS.sub(sub, text)


def _fio_prefix(text: str, kb_base: int) -> int | None:
    """What fio reads from a value it does not evaluate (``2*8``: 2; ``4k*2``: 4096): the
    number at the start and the unit right after it; None when nothing there is a number."""
    m = _LEADING.match(text)
    if not m:
        return None
    try:
        return parse_fio_int(m.group(0), kb_base)
    except UnitError:
        return int(m.group(1), 0)


def _arithmetic(raw: str, text: str, *, whole: bool = False) -> int:
    """fio's arithmetic in a parenthesised value (``(5*1024*1024*4096/8)``, ``(1+2)^3``):
    numbers with + - * / % and ^ (power), the result cut to a whole number; ``whole``: as bc
    evaluates it for fio (whole numbers, each division cut)."""
    import ast
    import operator

    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Mod: operator.mod, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv}

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = value(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            left, right = value(node.left), value(node.right)
            if whole and isinstance(node.op, ast.Div):
                return int(left / right)
            if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 2**32):
                raise UnitError(f"{raw!r}: a power too large for fio")
            return ops[type(node.op)](left, right)
        raise UnitError(f"{raw!r} is not fio arithmetic (whole numbers with + - * / % ^)")

    if len(text) > 200:
        raise UnitError(f"{raw[:40]!r}...: an expression too long for fio")
    try:
        result = value(ast.parse(text.replace("^", "**"), mode="eval").body)
    except UnitError:
        raise
    except (SyntaxError, ZeroDivisionError, ValueError, OverflowError, RecursionError):
        raise UnitError(f"{raw!r} is not fio arithmetic (whole numbers with + - * / % ^)") from None
    if abs(result) >= 2**64:
        raise UnitError(f"{raw!r} is larger than fio's 64-bit numbers")
    return int(result)


def parse_fio_size(text: str, kb_base: int = 1024) -> int:
    """Read a fio size into bytes (same rules as :func:`parse_fio_int`); raises UnitError."""
    return parse_fio_int(text, kb_base)


def parse_fio_time(text: str, bare: str = "s") -> float:
    """Read a fio time into seconds: a bare number is in ``bare`` (seconds, or ``us`` for
    the options fio keeps in microseconds, such as ``thinktime``); suffixes d, h, m, s, ms, us.

    Suffixes are case-insensitive (``1M`` is one minute, as in fio). Raises UnitError.
    """
    raw = text
    m = _TIME_RE.match(text.strip())
    unit = m.group("unit").lower() if m else ""
    if not m or unit not in _TIME:
        raise UnitError(f"{raw!r} is not a fio time (examples: 30, 500ms, 250us, 10m, 1h)")
    mult, div = _TIME[unit or bare]
    return float(m.group("num")) * mult / div


def parse_fio_bool(text: str) -> bool:
    """Read a fio boolean: ``1`` or ``0`` (fio refuses ``true``, and a bool without a value).

    Raises UnitError on anything else.
    """
    value = text.strip()
    if value in ("1", "0"):
        return value == "1"
    raise UnitError(f"{text!r} is not a fio boolean (use 1 or 0)")


#: options FioJob keeps only as written that the model reads all the same (the IO-size
#: distribution, a job's phase), so they are not reported as ignored
MODELLED_OPTIONS = frozenset({"bssplit", "bsrange", "wait_for"})
#: a fio variable in a value: ``${NAME}`` or ``$word`` (``$jobname``, ``$ncpus``)
VARIABLE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}|\$(?P<word>[A-Za-z_]+)")
#: Keywords fio itself fills in per job and file (``filename_format``): left as written.
FIO_KEYWORDS = frozenset({"jobname", "jobnum", "filenum", "clientuid"})


def machine_keywords() -> dict[str, str]:
    """fio's keywords about the machine it runs on, as fio computes them here: ``mb_memory``
    (physical memory in MiB), ``ncpus`` (CPUs online), ``pagesize`` (bytes)."""
    import os

    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    pages = os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 0
    cpus = os.sysconf("SC_NPROCESSORS_ONLN") if hasattr(os, "sysconf") else (os.cpu_count() or 1)
    return {"mb_memory": str(page * pages // 2**20), "ncpus": str(cpus), "pagesize": str(page)}


def _known_names() -> list[str]:
    return sorted(set(MODELLED) | KNOWN | set(ALIASES))


def check_option(name: str, *, source: str, field: str, note: str = "") -> str:
    """The canonical name of job option `name`; SchemaError (with the nearest known option)
    when it is not a fio job option at all."""
    if is_job_option(name):
        return canonical(name)
    if name in PROGRAM:
        raise SchemaError(f"{name!r} is a fio command-line switch (--{name}), not a job option{note}",
                          file=source, field=field)
    hint = nearest(name, _known_names())
    suggestion = f"; nearest: {', '.join(hint)}" if hint else ""
    raise SchemaError(f"unknown fio option {name!r}{suggestion}{note}", file=source, field=field)


def reads_value(name: str) -> bool:
    """Whether iolab reads option `name`'s value (the model's options, and the job's files),
    so that a value it cannot know is an error there; other options are kept as written."""
    return name in MODELLED and name != "description"


def expand_variables(value: str, env: Mapping[str, str] | None, *, source: str, field: str, note: str,
                     needed: bool = True) -> str:
    """`value` with ``${VAR}`` replaced from `env`, and fio's keywords ``$mb_memory``,
    ``$ncpus``, ``$pagesize`` with this machine's figures as fio computes them (``$jobname``,
    ``$jobnum``, ``$filenum``, ``$clientuid`` are left for fio). A variable with no value is
    a SchemaError where the value is `needed` (iolab never reads the process environment);
    elsewhere (an option iolab does not read, such as an engine's credentials) it is left as
    written, for fio to expand when it runs."""

    def sub(m: re.Match[str]) -> str:
        var = m.group("name") or m.group("word")
        if m.group("word") in FIO_KEYWORDS:
            return m.group(0)
        if env is not None and var in env:
            return str(env[var])
        if m.group("word") in ("mb_memory", "ncpus", "pagesize"):
            return machine_keywords()[var]
        if not needed:
            return m.group(0)
        raise SchemaError(f"fio would expand {m.group(0)} from its environment; iolab does not read the "
                          f"environment: write the value itself{note}", file=source, field=field)

    if "$" not in value:
        return value
    out = VARIABLE.sub(sub, value)
    keyword = any(m.group("word") in ("mb_memory", "ncpus", "pagesize") for m in VARIABLE.finditer(value))
    if keyword and any(op in out for op in "+-*/") and "'" not in out and needed:
        # fio hands a value with a keyword and arithmetic to bc: whole numbers, division cut
        if not _BC.match(out):
            raise SchemaError(f"fio hands {value!r} ({out!r}) to bc, which reads whole numbers and + - * / % ^ "
                              f"only (no units): write the value{note}", file=source, field=field)
        out = str(_arithmetic(value, out, whole=True))
    return out
