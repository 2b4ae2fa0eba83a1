#pragma once
template <typename T, int Factor>
void launch_axpy(T* y, const T* x, T a, int n);
