/// The channel's player page: a `<video>` on the multivariant playlist (browsers with native
/// HLS play it directly; a failed start is retried, as the channel may not have its first
/// segment yet) and the live latency from EXT-X-PROGRAM-DATE-TIME: exact where the browser maps
/// playback to wall-clock time (`getStartDate`), else the age of the newest complete segment's
/// end plus how far playback trails what is buffered.
enum PlayerPage {
    static func html(channelId: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Proscenium channel \(channelId)</title>
        <style>
          body { margin: 0; background: #111; color: #ddd; font: 14px system-ui, sans-serif; }
          video { display: block; width: 100vw; max-height: 90vh; background: #000; }
          #info { padding: 8px 12px; }
        </style>
        </head>
        <body>
        <video id="player" src="/hls/\(channelId)/master.m3u8" autoplay muted playsinline controls></video>
        <div id="info">latency <span id="latency">–</span> · <span id="state">loading</span></div>
        <script>
        const video = document.getElementById('player');
        const latencyText = document.getElementById('latency');
        const stateText = document.getElementById('state');
        window.liveLatencySeconds = null;
        async function newestSegmentEnd() {
          const master = await (await fetch('/hls/\(channelId)/master.m3u8', {cache: 'no-store'})).text();
          const uri = master.split('\\n').find(line => line && !line.startsWith('#'));
          const media = await (await fetch('/hls/\(channelId)/' + uri, {cache: 'no-store'})).text();
          let start = null, end = null;
          for (const line of media.split('\\n')) {
            if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) start = Date.parse(line.slice(25));
            else if (start !== null && line.startsWith('#EXTINF:')) end = start + parseFloat(line.slice(8)) * 1000;
          }
          return end;
        }
        async function measure() {
          try {
            let latency = null;
            const start = video.getStartDate ? video.getStartDate().getTime() : NaN;
            if (!isNaN(start)) {
              latency = (Date.now() - start) / 1000 - video.currentTime;
            } else if (video.buffered.length > 0) {
              const end = await newestSegmentEnd();
              const ahead = video.buffered.end(video.buffered.length - 1) - video.currentTime;
              if (end !== null) latency = (Date.now() - end) / 1000 + ahead;
            }
            if (latency !== null) {
              window.liveLatencySeconds = latency;
              latencyText.textContent = latency.toFixed(2) + ' s';
            }
            stateText.textContent = video.paused ? 'paused' : 'playing ' + video.currentTime.toFixed(1) + ' s';
          } catch (e) { stateText.textContent = 'offline'; }
        }
        video.addEventListener('error', () => {
          stateText.textContent = 'waiting for the channel (' + (video.error && video.error.code) + ')';
          setTimeout(() => { video.src = '/hls/\(channelId)/master.m3u8'; video.play().catch(() => {}); }, 1000);
        });
        setInterval(measure, 1000);
        </script>
        </body>
        </html>
        """
    }
}
