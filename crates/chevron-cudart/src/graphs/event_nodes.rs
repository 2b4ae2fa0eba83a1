//! An event node's event: `cudaGraphEventRecordNodeGetEvent/SetEvent`,
//! `cudaGraphEventWaitNodeGetEvent/SetEvent`, and in an instantiated graph
//! `cudaGraphExecEventRecordNodeSetEvent/ExecEventWaitNodeSetEvent`.
//!
//! A node names its event by handle; which recording a wait sees is decided when the node runs,
//! so giving a node another event changes only that handle (in the instantiation's own copy for
//! the `Exec` forms, the source graph keeping its event).

use std::ffi::c_void;

use super::exec_params::set_node;
use super::model::NodeKind;
use super::params::{not_a, read_node, replace_node};
use crate::errors::{cudaError_t, guard, CudaResult};
use crate::memory::store;

/// Which of the two event nodes.
#[derive(Clone, Copy)]
enum Side {
    Record,
    Wait,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Record => "event record",
            Side::Wait => "event wait",
        }
    }

    /// The node of this side naming `event`, once `event` is checked to be live.
    fn node(self, event: *mut c_void) -> CudaResult<NodeKind> {
        crate::streams::event_token(event)?;
        Ok(match self {
            Side::Record => NodeKind::EventRecord(event as usize),
            Side::Wait => NodeKind::EventWait(event as usize),
        })
    }
}

/// Writes the event of `node`, an event node of `side`.
fn get(node: *mut c_void, out: *mut *mut c_void, side: Side) -> CudaResult {
    let event = read_node(node, |kind| match (kind, side) {
        (&NodeKind::EventRecord(event), Side::Record)
        | (&NodeKind::EventWait(event), Side::Wait) => Ok(event),
        _ => Err(not_a(side.name())),
    })?;
    store(out, event as *mut c_void, "event_out")
}

/// Writes the event an event record node records.
#[no_mangle]
pub extern "C" fn cudaGraphEventRecordNodeGetEvent(
    node: *mut c_void,
    out: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaGraphEventRecordNodeGetEvent", || {
        get(node, out, Side::Record)
    })
}

/// Gives an event record node another event.
#[no_mangle]
pub extern "C" fn cudaGraphEventRecordNodeSetEvent(
    node: *mut c_void,
    event: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphEventRecordNodeSetEvent", || {
        let side = Side::Record;
        replace_node(node, side.node(event), side.name())
    })
}

/// Writes the event an event wait node waits for.
#[no_mangle]
pub extern "C" fn cudaGraphEventWaitNodeGetEvent(
    node: *mut c_void,
    out: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaGraphEventWaitNodeGetEvent", || {
        get(node, out, Side::Wait)
    })
}

/// Gives an event wait node another event.
#[no_mangle]
pub extern "C" fn cudaGraphEventWaitNodeSetEvent(
    node: *mut c_void,
    event: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphEventWaitNodeSetEvent", || {
        let side = Side::Wait;
        replace_node(node, side.node(event), side.name())
    })
}

/// Gives event record node `node` of `exec` another event (the source graph keeps its own).
#[no_mangle]
pub extern "C" fn cudaGraphExecEventRecordNodeSetEvent(
    exec: *mut c_void,
    node: *mut c_void,
    event: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphExecEventRecordNodeSetEvent", || {
        let side = Side::Record;
        set_node(exec, node, side.node(event), side.name(), |_, _| Ok(()))
    })
}

/// Gives event wait node `node` of `exec` another event (the source graph keeps its own).
#[no_mangle]
pub extern "C" fn cudaGraphExecEventWaitNodeSetEvent(
    exec: *mut c_void,
    node: *mut c_void,
    event: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphExecEventWaitNodeSetEvent", || {
        let side = Side::Wait;
        set_node(exec, node, side.node(event), side.name(), |_, _| Ok(()))
    })
}
