//! `cp.async.bulk.tensor` (TMA, sm_90): placeholder.

use super::{Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::ExecFault;
use crate::interp::warp::Warp;

/// A decoded `cp.async.bulk.tensor` copy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BulkTensor {}

pub(super) fn execute(
    _op: &BulkTensor,
    _w: &mut Warp,
    _b: &mut Block,
    _l: &Launch<'_>,
    _mask: u32,
) -> Result<Flow, ExecFault> {
    Ok(Flow::Next)
}
