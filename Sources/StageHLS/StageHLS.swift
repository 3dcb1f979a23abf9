/// HLS for the compositor's channels and recordings: see `HLSPlaylist` and `PartManifest`.
enum StageHLS {}
