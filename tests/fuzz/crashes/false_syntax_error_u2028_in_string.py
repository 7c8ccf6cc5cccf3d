from torch import nn
class U(nn.Module):
    (' ')# 
    def forward():()