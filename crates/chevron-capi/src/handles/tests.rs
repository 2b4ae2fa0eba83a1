//! Tests of the handle registries: checks of kind and staleness, retirement of slots whose
//! generation is used up, chunked slots, and concurrent use.

use super::*;
use std::sync::Arc;
use std::thread;

#[test]
fn handles_are_checked_for_null_kind_and_staleness() {
    let streams: Registry<u32> = Registry::new(Kind::Stream);
    let events: Registry<u32> = Registry::new(Kind::MgpuEvent);
    let a = streams.insert(7);
    let e = events.insert(9);
    assert_eq!(streams.get(a), Ok(7));
    assert_eq!(streams.get(0), Err(HandleError::Null));
    assert_eq!(
        streams.get(e),
        Err(HandleError::WrongKind(Some(Kind::MgpuEvent)))
    );
    assert_eq!(streams.get(12345), Err(HandleError::WrongKind(None)));
    assert_eq!(streams.remove(a), Ok(7));
    assert_eq!(streams.get(a), Err(HandleError::Stale));
    assert_eq!(streams.remove(a), Err(HandleError::Stale));
    // The slot is reused under a new generation: the old handle stays stale.
    let b = streams.insert(8);
    assert_ne!(a, b);
    assert_eq!(streams.get(a), Err(HandleError::Stale));
    assert_eq!(streams.get(b), Ok(8));
    assert_eq!(streams.remove_where(|v| *v == 8), 1);
    assert_eq!(streams.get(b), Err(HandleError::Stale));
    let message = HandleError::WrongKind(Some(Kind::MgpuStream)).describe(Kind::MgpuEvent, 5);
    assert!(
        message.contains("CUstream") && message.contains("CUevent"),
        "{message}"
    );
}

#[test]
fn a_slot_whose_generation_is_used_up_is_retired_not_reused() {
    let buffers: Registry<u32> = Registry::new(Kind::Buffer);
    let first = buffers.insert(1);
    assert_eq!(buffers.remove(first), Ok(1));
    buffers.age(0, GENERATION_MASK - 1);
    let mut issued = vec![first];
    for value in 2..6 {
        let handle = buffers.insert(value);
        assert!(!issued.contains(&handle), "handle {handle:#x} issued twice");
        assert_eq!(buffers.get(handle), Ok(value));
        issued.push(handle);
        assert_eq!(buffers.remove(handle), Ok(value));
    }
    // Slot 0 lived at generations 2^24 - 2 and 2^24 - 1, then was retired for slot 1.
    assert_eq!(issued[1] & 0xffff_ffff, 1);
    assert_eq!(issued[2] & 0xffff_ffff, 1);
    assert_eq!(issued[3] & 0xffff_ffff, 2);
    assert!(issued
        .iter()
        .all(|&h| buffers.get(h) == Err(HandleError::Stale)));
}

#[test]
fn slots_span_chunks_and_removal_by_predicate_frees_them() {
    let tokens: Registry<usize> = Registry::new(Kind::Token);
    let handles: Vec<u64> = (0..1000).map(|v| tokens.insert(v)).collect();
    assert!(handles
        .iter()
        .enumerate()
        .all(|(v, &h)| tokens.get(h) == Ok(v)));
    assert_eq!(tokens.remove_where(|v| v % 2 == 0), 500);
    assert_eq!(tokens.get(handles[2]), Err(HandleError::Stale));
    assert_eq!(tokens.with(handles[3], |v| v * 10), Ok(30));
    let again = tokens.insert(7);
    assert!(!handles.contains(&again));
    assert_eq!(Registry::<usize>::locate(0), (0, 0));
    assert_eq!(Registry::<usize>::locate(64), (1, 0));
    assert_eq!(Registry::<usize>::locate(u32::MAX - 2).0, CHUNKS - 1);
}

#[test]
fn concurrent_inserts_removes_and_lookups_never_see_another_owner() {
    let registry: Arc<Registry<u64>> = Arc::new(Registry::new(Kind::Stream));
    let workers: Vec<_> = (0..4u64)
        .map(|worker| {
            let registry = Arc::clone(&registry);
            thread::spawn(move || {
                let mut released = Vec::new();
                for i in 0..2000u64 {
                    let value = worker << 32 | i;
                    let handle = registry.insert(value);
                    assert_eq!(registry.get(handle), Ok(value));
                    assert_eq!(registry.remove(handle), Ok(value));
                    released.push(handle);
                }
                // Others reused the slots meanwhile; none of this worker's handles came back.
                for handle in released {
                    assert_eq!(registry.get(handle), Err(HandleError::Stale));
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
}
