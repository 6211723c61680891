// Drives the live page (tools/live/live_page.html) in a headless Chromium for host_tests/
// test_live_page.py: playwright-core (no browser download) on the system's chromium.
// One JSON command per stdin line, one JSON answer per stdout line:
//   {"cmd": "open", "url": U, "width": W, "height": H}   -> {"ok": true}
//   {"cmd": "wait", "version": V, "limit_ms": L}         -> {"ok": bool, "ms": waited}
//       (polls the page's data-version until it is at least V, at most L ms)
//   {"cmd": "read", "at": S}                             -> {"boards": [...]}
//       (S: the server instant to draw for, null = as the page draws by itself)
//   {"cmd": "background"}                                -> {"color": css}
//   {"cmd": "shot", "path": P}                           -> {"ok": true}
//   {"cmd": "quit"}
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
let page = null;

function say(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

async function read(at) {
  return page.evaluate((at) => {
    if (at !== null) window.renderAt(at);
    return [...document.querySelectorAll(".board")].map((card) => ({
      id: card.id,
      link: card.querySelector(".link").textContent,
      result: card.querySelector(".result").textContent,
      sides: [0, 1].map((s) => {
        const box = document.getElementById(card.id + "-s" + s);
        const d = box.querySelector(".digits");
        return {
          text: d.dataset.text,
          colon: d.dataset.colon === "1",
          shown: d.textContent,
          on: box.classList.contains("on"),
          info: box.querySelector(".info").textContent,
          name: box.querySelector(".name").textContent,
        };
      }),
    }));
  }, at);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const c = JSON.parse(line);
  try {
    if (c.cmd === "open") {
      page = await browser.newPage({ viewport: { width: c.width || 1280, height: c.height || 720 } });
      await page.goto(c.url);
      say({ ok: true });
    } else if (c.cmd === "wait") {
      const t0 = Date.now();
      let ok = false;
      for (let i = 0; i < c.limit_ms / 5; i++) {
        const v = await page.evaluate(() => Number(document.body.dataset.version || -1));
        if (v >= c.version) { ok = true; break; }
        await new Promise((r) => setTimeout(r, 5));
      }
      say({ ok, ms: Date.now() - t0 });
    } else if (c.cmd === "read") {
      say({ boards: await read(c.at) });
    } else if (c.cmd === "background") {
      say({ color: await page.evaluate(() => getComputedStyle(document.body).backgroundColor) });
    } else if (c.cmd === "shot") {
      await page.screenshot({ path: c.path });
      say({ ok: true });
    } else if (c.cmd === "quit") {
      break;
    }
  } catch (e) {
    say({ error: String(e) });
  }
}
await browser.close();
process.exit(0);
