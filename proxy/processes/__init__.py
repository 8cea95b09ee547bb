"""Every process commerce-proxy starts besides its own: forked readers of a cassette's second half,
the second core of `check`, and the live check worker of `record` and `spy`.

One failure contract holds for all of them: a helper that cannot start, fails, or hangs past its time
changes nothing but speed. Its part is done in this process instead, with the same result, so a job
comes out the same on one core or two.
"""
