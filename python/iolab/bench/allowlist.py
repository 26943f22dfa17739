"""What a benchmark may run without ``--destructive``: the allow-list.

A bench run that is not ``--destructive`` runs only what iolab can show to be harmless.
Anything not on these lists is refused (exit 3) with the option, mode or engine named:

- :data:`READ_MODES` read the named files; every other ``rw`` mode (:data:`WRITE_MODES`,
  and any mode iolab does not know) writes or trims, which is allowed only on files the run
  creates itself inside its target directory.
- :data:`ENGINES` issue IO to the job's own files through the kernel's file interface (or
  no IO at all); any other engine (``exec``, ``filecreate``, ``rbd``, ``sg``, ``http``...)
  may touch things iolab cannot see.
- :data:`OPTIONS` shape the IO a job issues to its own files or how fio reports it; none
  names another file, runs a program, or changes the machine. Options that do
  (``read_iolog``, ``replay_redirect``, ``write_*_log``, ``exec_prerun``, ``create_only``,
  ``opendir``, ``ioscheduler``, ``cgroup``, ``mem=mmap:FILE``, ...) are not on the list.
- :data:`OFF` may appear switched off (``=0``): ``unlink=0`` is as harmless as no unlink.
- :data:`WRITING` options make a job change the data of its files (``verify``,
  ``overwrite``, ...), so it is held to the rules of a writing job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["READ_MODES", "WRITE_MODES", "ENGINES", "OPTIONS", "OFF", "WRITING", "refused_option",
           "is_off", "writes"]

#: fio ``rw`` modes that only read.
READ_MODES = frozenset({"read", "randread"})

#: fio ``rw`` modes that write or trim (any other mode counts as writing too).
WRITE_MODES = frozenset({"write", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim",
                         "trimwrite", "randtrimwrite"})

#: ioengines that act only on the job's own files through the kernel (or do no IO).
ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2", "io_uring", "libaio",
                     "posixaio", "mmap", "splice", "null", "cpp_null", "cpuio"})

#: job options a run may carry without --destructive.
OPTIONS = frozenset("""
name description kb_base unit_base
rw rwmixread rwmixwrite rw_sequencer
bs bsrange bssplit ba bs_unaligned bs_is_seq_rand
iodepth iodepth_batch iodepth_batch_complete_min iodepth_batch_complete_max iodepth_low
numjobs ioengine direct buffered thread
size filesize nrfiles io_size number_ios offset offset_increment offset_align
openfiles file_service_type
runtime ramp_time time_based loops startdelay
rate_iops rate rate_min rate_iops_min rate_cycle rate_process rate_ignore_thinktime
thinktime thinktime_spin thinktime_blocks thinktime_blocks_type thinktime_iotime
directory filename filename_format
stonewall wait_for new_group group_reporting
norandommap softrandommap randrepeat allrandrepeat randseed random_distribution
random_generator percentage_random
zero_buffers refill_buffers scramble_buffers buffer_pattern buffer_compress_percentage
buffer_compress_chunk dedupe_percentage dedupe_mode dedupe_working_set_percentage
fsync fdatasync end_fsync fsync_on_close sync sync_file_range
invalidate pre_read fadvise_hint fallocate create_on_open create_serialize create_fsync
allow_file_create overwrite file_append
fixedbufs registerfiles sqthread_poll sqthread_poll_cpu hipri hipri_percentage
userspace_reap nowait io_submit_mode force_async nonvectored
cpus_allowed cpus_allowed_policy cpumask cpuload cpuchunks cpumode nice prio prioclass
gtod_reduce gtod_cpu clocksource
lat_percentiles clat_percentiles slat_percentiles percentile_list significant_figures
disable_lat disable_clat disable_slat disable_bw_measurement unified_rw_reporting stats
bwavgtime iopsavgtime
latency_target latency_window latency_percentile latency_run max_latency
continue_on_error ignore_error exitall exitall_on_error exit_what
verify do_verify verify_interval verify_offset verify_pattern verify_fatal verify_backlog
verify_backlog_batch verify_async verify_only verify_write_sequence experimental_verify
trim_percentage trim_backlog trim_backlog_batch trim_verify_zero
steadystate steadystate_duration steadystate_ramp_time steadystate_check_interval
flow flow_id flow_sleep flow_watermark
numa_cpu_nodes random_sequence_stride percentage_sequential ramp_size atomic dedupe_global
error_dump end_syncfs priohint threads
""".split())

#: boolean options that are harmless when switched off (``=0``), and only then (a file
#: option such as ``write_iolog=0`` names a file ``0``: not here).
OFF = frozenset({"unlink", "unlink_each_loop", "create_only", "fill_device", "allow_mounted_write",
                 "verify_state_save", "verify_dump"})

#: options that make a job change its files' data when they are on.
WRITING = ("verify", "overwrite", "file_append")


def is_off(value: Any) -> bool:
    """True for a value that switches an option off (``0``, ``none``, ``false``, ``no``)."""
    return value is not None and str(value).strip().lower() in ("0", "none", "false", "no")


def refused_option(options: Mapping[str, Any]) -> str | None:
    """The first option in `options` (canonical names) that is not allowed without
    --destructive, as ``name`` or ``name=value``; None when all are."""
    for name, value in options.items():
        if name in OPTIONS:
            continue
        if name in OFF and is_off(value):
            continue
        text = str(value)
        return name if text == "" else f"{name}={text}"
    return None


def writes(rw: str, options: Mapping[str, Any]) -> bool:
    """True when a job with this ``rw`` mode and these options changes data: it writes or
    trims (or uses a mode iolab does not know), verifies, overwrites or appends."""
    mode = rw.split(":")[0].strip().lower()
    if mode not in READ_MODES:
        return True
    return any(name in options and not is_off(options[name]) for name in WRITING)
