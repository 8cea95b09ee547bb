"""The mitmproxy adapter: reading flow files and the recording addon. The only code importing mitmproxy."""
