//! User objects (`cuUserObjectCreate`, `cuUserObjectRetain/Release`,
//! `cuGraphRetainUserObject/ReleaseUserObject`): the runtime's functions of the same meaning
//! (`cudart::graphs::user_objects`, which owns the objects and the references graphs hold).
//! `cuda.core` ties the Python objects a captured graph uses to the graph this way.

use std::ffi::{c_uint, c_void};

use cudart::graphs::user_objects;

forward! {
    /// Creates a user object with `initial` references held by the caller.
    cuUserObjectCreate => user_objects::cudaUserObjectCreate,
        (out: *mut *mut c_void, data: *mut c_void,
         destroy: Option<unsafe extern "C" fn(*mut c_void)>, initial: c_uint, flags: c_uint);
    /// Adds `count` references held by the caller.
    cuUserObjectRetain => user_objects::cudaUserObjectRetain, (object: *mut c_void, count: c_uint);
    /// Drops `count` references held by the caller.
    cuUserObjectRelease => user_objects::cudaUserObjectRelease, (object: *mut c_void, count: c_uint);
    /// Makes `graph` hold `count` references of `object` (taken from the caller with
    /// `CU_GRAPH_USER_OBJECT_MOVE`).
    cuGraphRetainUserObject => user_objects::cudaGraphRetainUserObject,
        (graph: *mut c_void, object: *mut c_void, count: c_uint, flags: c_uint);
    /// Drops `count` of the references `graph` holds of `object`.
    cuGraphReleaseUserObject => user_objects::cudaGraphReleaseUserObject,
        (graph: *mut c_void, object: *mut c_void, count: c_uint);
}
