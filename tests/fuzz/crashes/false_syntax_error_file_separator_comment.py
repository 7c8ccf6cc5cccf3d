from torch import nn
class n(nn.Module):
    def _()->e:#
     ()
    def forward():
     e