// warp_aggregated built at nvcc's default architecture (sm_75): the groups' maxima and counts
// come from __shfl_sync over each group's own member mask instead of __reduce_*_sync.
#define SAMPLE_NAME "warp_aggregated_default_arch"
#include "../warp_aggregated/warp_aggregated.cu"
