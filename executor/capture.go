package executor

import "slices"

// initialRetention is the first allocation of a retention buffer; it grows
// by doubling up to the cap, so a command with little output costs little.
const initialRetention = 32 << 10

// retention keeps the bytes of one stream that fit in the cap.
//
// In head mode the buffer holds the first limit bytes. In head+tail mode the
// buffer is split: buf[:headLen] is the head, buf[headLen:limit] is a ring
// holding the most recent bytes once the stream exceeded the cap. Until the
// stream exceeds the cap, buf[:total] is the whole stream in order, in both
// modes. Writing never allocates once the buffer reached its final size.
type retention struct {
	limit    int // <0: unlimited
	headTail bool
	headLen  int // head+tail mode: size of the head region (limit/2)

	buf     []byte
	total   int64
	ringPos int  // head+tail: next write offset inside the ring region
	wrapped bool // head+tail: the ring has been written past the cap
}

func newRetention(limit int, headTail bool) *retention {
	r := &retention{limit: limit, headTail: headTail && limit > 0}
	if r.headTail {
		r.headLen = limit / 2
	}
	return r
}

// grow makes room for n more bytes in buf, never beyond the limit.
func (r *retention) grow(n int) {
	need := len(r.buf) + n
	if need <= cap(r.buf) {
		return
	}
	c := max(2*cap(r.buf), initialRetention, need)
	if r.limit >= 0 {
		c = min(c, r.limit)
	}
	nb := make([]byte, len(r.buf), c)
	copy(nb, r.buf)
	r.buf = nb
}

// Write retains what fits and counts everything; it never fails.
func (r *retention) Write(p []byte) (int, error) {
	n := len(p)
	r.total += int64(n)
	if r.limit < 0 {
		r.grow(len(p))
		r.buf = append(r.buf, p...)
		return n, nil
	}
	if room := r.limit - len(r.buf); room > 0 {
		k := min(room, len(p))
		r.grow(k)
		r.buf = append(r.buf, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || !r.headTail {
		return n, nil
	}
	// Past the cap in head+tail mode: the bytes go to the ring
	// buf[headLen:limit], overwriting the oldest.
	ring := r.buf[r.headLen:r.limit]
	if !r.wrapped {
		r.wrapped = true
		r.ringPos = 0
	}
	if len(p) >= len(ring) {
		copy(ring, p[len(p)-len(ring):])
		r.ringPos = 0
		return n, nil
	}
	k := copy(ring[r.ringPos:], p)
	if k < len(p) {
		copy(ring, p[k:])
		r.ringPos = len(p) - k
	} else {
		r.ringPos += k
		if r.ringPos == len(ring) {
			r.ringPos = 0
		}
	}
	return n, nil
}

// full reports whether head retention has reached its limit, so that the
// rest of the stream only needs counting.
func (r *retention) full() bool {
	return !r.headTail && r.limit >= 0 && len(r.buf) >= r.limit
}

// finish puts the ring in order and returns the retained head and tail. The
// tail is nil unless bytes between head and tail were dropped. In head+tail
// mode the bytes that were overwritten in the ring are counted as omitted.
func (r *retention) finish() (head, tail []byte, omitted int64) {
	retained := int64(len(r.buf))
	if !r.wrapped {
		return r.buf, nil, r.total - retained
	}
	ring := r.buf[r.headLen:r.limit]
	// Rotate so that the oldest byte (at ringPos) comes first.
	slices.Reverse(ring[:r.ringPos])
	slices.Reverse(ring[r.ringPos:])
	slices.Reverse(ring)
	r.ringPos = 0
	r.wrapped = false
	// The retained bytes are the first headLen and the last len(ring) bytes
	// of the stream; what lies between them was dropped.
	return r.buf[:r.headLen], ring, r.total - retained
}

// aggregateBudgets splits the aggregate's cap between stdout and stderr:
// within the cap both are kept whole; over it stdout gets at most cap/3,
// stderr takes what it needs from the rest and any room stderr leaves goes
// back to stdout. A negative limit means no cap.
func aggregateBudgets(limit int, outLen, errLen int) (outBudget, errBudget int) {
	if limit < 0 || outLen+errLen <= limit {
		return outLen, errLen
	}
	out := min(outLen, limit/3)
	errBudget = min(errLen, limit-out)
	outBudget = min(outLen, limit-errBudget)
	return outBudget, errBudget
}
