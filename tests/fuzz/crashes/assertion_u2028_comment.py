import torch

# x
@torch.compile
def f(x):
    print(x)
    return x
