//! User objects (`cudaUserObjectCreate`, `cudaUserObjectRetain/Release`,
//! `cudaGraphRetainUserObject/ReleaseUserObject`): a program's resource with a destructor, kept
//! alive by references that the program and graphs hold. The driver's `cuUserObject*` and
//! `cuGraphRetain/ReleaseUserObject` are these functions (`cuda.core` ties the Python objects
//! a captured graph uses to the graph this way).
//!
//! A graph's references are held by the graph and, from its instantiation on, by each
//! instantiated graph made from it (as CUDA does, so an instantiated graph outlives the graph
//! it came from): `cudaGraphDestroy`, `cudaGraphInstantiate` and `cudaGraphExecDestroy` call
//! [`release_held`] and [`share_held`]. When the last reference goes, the destructor runs on
//! the calling thread; CUDA forbids it to call CUDA, so it cannot re-enter this module.

use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::sync::Mutex;

use super::{bad_handle, find_graph};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::state::lock;

/// `cudaUserObjectNoDestructorSync`: the only flag `cudaUserObjectCreate` takes.
const NO_DESTRUCTOR_SYNC: c_uint = 1;
/// `cudaGraphUserObjectMove`: the caller's references move to the graph.
const MOVE: c_uint = 1;

/// A destructor and what it is called with.
type Destructor = unsafe extern "C" fn(*mut c_void);

struct UserObject {
    data: usize,
    destroy: Destructor,
    references: u64,
}

#[derive(Default)]
struct Objects {
    by_handle: HashMap<usize, UserObject>,
    /// References held by a graph or an instantiated graph: (object, count).
    held: HashMap<usize, Vec<(usize, u64)>>,
    next: usize,
}

static OBJECTS: Mutex<Option<Objects>> = Mutex::new(None);

/// `cudaErrorInvalidValue` naming a user object that is not live.
fn not_live(object: usize) -> CudaError {
    bad_handle(object as *const c_void, "cudaUserObject_t")
}

/// Drops `count` references of `object`; the destructor to run if none is left.
fn release(
    objects: &mut Objects,
    object: usize,
    count: u64,
) -> CudaResult<Option<(Destructor, usize)>> {
    let entry = objects
        .by_handle
        .get_mut(&object)
        .ok_or_else(|| not_live(object))?;
    if count > entry.references {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "releasing {count} references of a user object that has {}",
                entry.references
            ),
        ));
    }
    entry.references -= count;
    if entry.references > 0 {
        return Ok(None);
    }
    let gone = objects.by_handle.remove(&object);
    Ok(gone.map(|o| (o.destroy, o.data)))
}

/// Runs destructors outside the lock.
fn run(destructors: Vec<(Destructor, usize)>) {
    for (destroy, data) in destructors {
        // SAFETY: the program's destructor, with the pointer it gave for it.
        unsafe { destroy(data as *mut c_void) };
    }
}

/// Releases every reference that `holder` (a graph or an instantiated graph) has.
pub(crate) fn release_held(holder: usize) {
    let mut destructors = Vec::new();
    {
        let mut objects = lock(&OBJECTS);
        let Some(objects) = objects.as_mut() else {
            return;
        };
        for (object, count) in objects.held.remove(&holder).unwrap_or_default() {
            if let Ok(Some(destructor)) = release(objects, object, count) {
                destructors.push(destructor);
            }
        }
    }
    run(destructors);
}

/// Gives `exec` (instantiated from `graph`) its own references to what `graph` holds.
pub(crate) fn share_held(graph: usize, exec: usize) {
    let mut objects = lock(&OBJECTS);
    let Some(objects) = objects.as_mut() else {
        return;
    };
    let Some(held) = objects.held.get(&graph).cloned() else {
        return;
    };
    for &(object, count) in &held {
        if let Some(entry) = objects.by_handle.get_mut(&object) {
            entry.references += count;
        }
    }
    objects.held.insert(exec, held);
}

/// Creates a user object with `initial` references held by the caller.
///
/// # Safety
/// `destroy` is callable with `data` once the last reference is released; `out` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaUserObjectCreate(
    out: *mut *mut c_void,
    data: *mut c_void,
    destroy: Option<Destructor>,
    initial: c_uint,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaUserObjectCreate", || {
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "object_out is NULL"));
        }
        let destroy = destroy.ok_or_else(|| CudaError::new(INVALID_VALUE, "destroy is NULL"))?;
        if initial == 0 || initial > i32::MAX as c_uint || flags != NO_DESTRUCTOR_SYNC {
            return Err(CudaError::new(
                INVALID_VALUE,
                "initialRefcount must be 1 to INT_MAX and flags cudaUserObjectNoDestructorSync",
            ));
        }
        let mut objects = lock(&OBJECTS);
        let objects = objects.get_or_insert_with(Objects::default);
        objects.next += 16;
        let handle = 0x7e00_0000 + objects.next;
        objects.by_handle.insert(
            handle,
            UserObject {
                data: data as usize,
                destroy,
                references: u64::from(initial),
            },
        );
        store(out, handle as *mut c_void, "object_out")
    })
}

/// `count` as a number of references: CUDA asks for one from 1 to `INT_MAX`.
fn references(count: c_uint) -> CudaResult<u64> {
    if count == 0 || count > i32::MAX as c_uint {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("count {count} (1 to INT_MAX references)"),
        ));
    }
    Ok(u64::from(count))
}

/// Adds `count` references held by the caller.
#[no_mangle]
pub extern "C" fn cudaUserObjectRetain(object: *mut c_void, count: c_uint) -> cudaError_t {
    guard("cudaUserObjectRetain", || {
        let count = references(count)?;
        let mut objects = lock(&OBJECTS);
        let entry = objects
            .as_mut()
            .and_then(|o| o.by_handle.get_mut(&(object as usize)))
            .ok_or_else(|| not_live(object as usize))?;
        entry.references += count;
        Ok(())
    })
}

/// Drops `count` references held by the caller.
#[no_mangle]
pub extern "C" fn cudaUserObjectRelease(object: *mut c_void, count: c_uint) -> cudaError_t {
    guard("cudaUserObjectRelease", || {
        let destructor = {
            let mut objects = lock(&OBJECTS);
            let objects = objects.get_or_insert_with(Objects::default);
            release(objects, object as usize, references(count)?)?
        };
        run(destructor.into_iter().collect());
        Ok(())
    })
}

/// Makes `graph` hold `count` references of `object` (taken from the caller with
/// `cudaGraphUserObjectMove`).
#[no_mangle]
pub extern "C" fn cudaGraphRetainUserObject(
    graph: *mut c_void,
    object: *mut c_void,
    count: c_uint,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaGraphRetainUserObject", || {
        find_graph(graph)?;
        let count = references(count)?;
        if flags & !MOVE != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags:#x} (0 or cudaGraphUserObjectMove)"),
            ));
        }
        let mut objects = lock(&OBJECTS);
        let objects = objects.get_or_insert_with(Objects::default);
        let entry = objects
            .by_handle
            .get_mut(&(object as usize))
            .ok_or_else(|| not_live(object as usize))?;
        if flags & MOVE == 0 {
            entry.references += count;
        }
        objects
            .held
            .entry(graph as usize)
            .or_default()
            .push((object as usize, count));
        Ok(())
    })
}

/// Drops `count` of the references `graph` holds of `object`.
#[no_mangle]
pub extern "C" fn cudaGraphReleaseUserObject(
    graph: *mut c_void,
    object: *mut c_void,
    count: c_uint,
) -> cudaError_t {
    guard("cudaGraphReleaseUserObject", || {
        find_graph(graph)?;
        let wanted = references(count)?;
        let destructor = {
            let mut objects = lock(&OBJECTS);
            let objects = objects.get_or_insert_with(Objects::default);
            if !objects.by_handle.contains_key(&(object as usize)) {
                return Err(not_live(object as usize));
            }
            let held = objects.held.entry(graph as usize).or_default();
            let mine = |&(o, _): &(usize, u64)| o == object as usize;
            let owned: u64 = held.iter().filter(|h| mine(h)).map(|&(_, c)| c).sum();
            if owned < wanted {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("the graph holds {owned} references of {object:p}, not {wanted}"),
                ));
            }
            let mut left = wanted;
            for held in held.iter_mut().filter(|h| mine(h)) {
                let taken = held.1.min(left);
                held.1 -= taken;
                left -= taken;
            }
            held.retain(|&(_, c)| c > 0);
            release(objects, object as usize, wanted)?
        };
        run(destructor.into_iter().collect());
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static DESTROYED: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "C" fn count_destroy(data: *mut c_void) {
        DESTROYED.fetch_add(data as usize, Ordering::SeqCst);
    }

    #[test]
    fn the_last_reference_runs_the_destructor_once() {
        let mut object = std::ptr::null_mut();
        // SAFETY: the destructor takes any pointer.
        let created = unsafe {
            cudaUserObjectCreate(&mut object, 7 as *mut c_void, Some(count_destroy), 2, 1)
        };
        assert_eq!(created, 0);
        // One reference moves to a graph, whose references, shared with an instantiation,
        // outlive the caller's other one.
        let (graph, exec) = (0x10usize, 0x20usize);
        lock(&OBJECTS)
            .as_mut()
            .unwrap()
            .held
            .insert(graph, vec![(object as usize, 1)]);
        share_held(graph, exec);
        assert_eq!(cudaUserObjectRelease(object, 1), 0);
        release_held(graph);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 0);
        release_held(exec);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 7);
        assert_ne!(cudaUserObjectRelease(object, 1), 0, "the object is gone");
        // SAFETY: as above.
        let refused = unsafe { cudaUserObjectCreate(&mut object, 7 as *mut c_void, None, 1, 1) };
        assert_eq!(refused, INVALID_VALUE);
    }

    #[test]
    fn a_count_of_no_references_or_more_than_int_max_is_invalid() {
        let mut object = std::ptr::null_mut();
        // SAFETY: the destructor takes any pointer.
        let created = unsafe {
            cudaUserObjectCreate(&mut object, std::ptr::null_mut(), Some(count_destroy), 1, 1)
        };
        assert_eq!(created, 0);
        assert_eq!(cudaUserObjectRetain(object, 0), INVALID_VALUE);
        assert_eq!(cudaUserObjectRetain(object, 0xC0DE_C0DE), INVALID_VALUE);
        assert_eq!(cudaUserObjectRelease(object, 0), INVALID_VALUE);
        assert_eq!(cudaUserObjectRelease(object, 1), 0);
    }
}
