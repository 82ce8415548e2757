//! The alias oracle: whether two strided views can reach the same memory.
