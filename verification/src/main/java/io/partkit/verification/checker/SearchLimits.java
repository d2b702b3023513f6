package io.partkit.verification.checker;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What every search of one check polls and reports to, the same for each call of
 * {@link WglSearch#advance}: built once per check, so that a slice of search steps is one call
 * with the key, its size, its budget and this.
 *
 * @param deadline the clock reading past which a search stops with unknown, or
 *     {@link Long#MAX_VALUE} for no time limit
 * @param clock the check's nanosecond clock ({@link CheckOptions#nanoClock()})
 * @param cancel set when the check stops early (another key was invalid, or a worker failed)
 * @param memory says when the heap is nearly full of search state
 * @param steps the steps of all the check's searches, for progress reports
 * @param ticker reports progress about once a second
 */
record SearchLimits(
    long deadline,
    LongSupplier clock,
    AtomicBoolean cancel,
    MemoryGuard memory,
    AtomicLong steps,
    ProgressTicker ticker) {}
