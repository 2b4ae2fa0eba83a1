// A work-efficient (Blelloch) exclusive scan of arbitrary length: per-block scans, a scan of
// the block sums, and a uniform add.
#pragma once
void exclusiveScan(const unsigned *deviceIn, unsigned *deviceOut, int n);
