"""Peak RSS of api serve answering a 60 MiB ingest batch with a wrong key (issue 49, item 2):
python3 bench/head_refusal_rss.py BINARY. Refused at the head, the body is drained and dropped, never held."""
import socket, subprocess, sys, time, re, os
binary = os.path.abspath(sys.argv[1])
import tempfile; os.chdir(tempfile.mkdtemp()); open('b.json','w').write('{"bundle_version": 1, "experiments": {}}\n'); open('k','w').write('adn_rss_key')
p = subprocess.Popen([binary,'api','serve','--bundle','b.json','--key-file','k','--port','0'], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
line = p.stderr.readline(); port = int(re.search(r':(\d+);', line).group(1))
def rss(): return int(re.search(r'VmHWM:\s+(\d+)', open(f'/proc/{p.pid}/status').read()).group(1))
time.sleep(0.5); before = rss()
s = socket.create_connection(('127.0.0.1', port)); size = 60 << 20
s.sendall(f'POST /api/v1/ingest/events HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: wrong\r\nContent-Encoding: deflate\r\nContent-Length: {size}\r\n\r\n'.encode())
chunk = b'\0' * (1 << 20); sent = 0
s.settimeout(30)
try:
    while sent < size: s.sendall(chunk); sent += len(chunk)
except OSError as e: pass
answer = s.recv(200).split(b'\r\n')[0]
time.sleep(0.5)
print(f'{binary}: answer {answer!r} after {sent >> 20} MiB sent; peak RSS {before} KiB before, {rss()} KiB after')
p.terminate(); p.wait()
