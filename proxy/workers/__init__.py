"""Helpers in other processes of ours: one small interface (`base.Runner`), two implementations
(`forked.Forked`, a forked child, and `in_process.InProcess`, no child at all), chosen in one place
(`choice.runner`). Each helper lives with the concern it serves: the reader of a cassette's second half
with the cassette reader (`proxy.store.cassette_reader.second_half`), the second core of `check` with
the check run (`proxy.app.two_core_check`).

One failure contract holds for all of them: a helper that cannot start, fails, or hangs past its time
changes nothing but speed. Its part is done in this process instead, with the same result, so a job
comes out the same on one core or two.
"""
