# Kernel-vs-reference session tests: a "custom kernel" written without torch.mm, its reference,
# a wrong kernel, and a factory that builds a kernel object with get_kernel_source() as TileLang's do.
import torch


def broadcast_mm(a, b):
    return (a.unsqueeze(2) * b.unsqueeze(0)).sum(1)


def reference_mm(a, b):
    return torch.mm(a, b)


def wrong_mm(a, b):
    return torch.mm(a, b) + 1.0


class FakeJITKernel:
    """Stands in for tilelang.JITKernel: callable, with the generated CUDA source."""

    def __call__(self, a, b):
        return broadcast_mm(a, b)

    def get_kernel_source(self):
        return ('#include <tl_templates/cuda/gemm.h>\n'
                'extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(float* A, float* B, float* C) {\n'
                '  tl::gemm_ss<64, 64, 32, 4, 1, 0, 0, 0, 64, 64, 0, 0, true>(A, B, C);\n'
                '}\n')


def build_fake_kernel():
    return FakeJITKernel()
