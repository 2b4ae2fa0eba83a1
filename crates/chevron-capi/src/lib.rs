//! chevron-capi: the C ABI of chevron.
