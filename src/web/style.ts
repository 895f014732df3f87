/**
 * The pages' one stylesheet (inline, under the CSP nonce): a type scale on a 1.2 ratio (0.83 / 1 / 1.2 / 1.44 /
 * 1.73 rem), one accent colour with AA contrast on white, a top bar that wraps, tables that scroll inside their own
 * box, so nothing scrolls sideways at 390 px.
 */
export const STYLE = `
:root{--fg:#1c2024;--muted:#5b636b;--line:#e3e6ea;--accent:#1f4fa8;--accent-bg:#eef3fc;--bg2:#f6f7f9;--ok:#0b6b2b;--err:#a3141b;--radius:8px}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:var(--fg);background:#fff}
main{max-width:44rem;margin:2rem auto 4rem;padding:0 1rem}
body.wide main{max-width:72rem}
h1{font-size:1.73rem;line-height:1.25;margin:.5rem 0 1rem;word-break:break-word;font-weight:650}
h2{font-size:1.2rem;margin:2rem 0 .75rem;font-weight:650}h3{font-size:1rem;margin:1.25rem 0 .5rem}
p{margin:.5rem 0 1rem}form{margin:1rem 0}label{display:block;margin:.5rem 0;font-weight:500}
a{color:var(--accent);text-underline-offset:2px}a:hover{text-decoration-thickness:2px}
code{font:.92em ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
.icon{width:1.1em;height:1.1em;vertical-align:-.18em;flex:none;fill:none;stroke:currentColor;stroke-width:1.8;stroke-linecap:round;stroke-linejoin:round}
header.top{border-bottom:1px solid var(--line);background:var(--bg2)}
header.top .bar{max-width:72rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header.top .brand{font-weight:700;color:var(--fg);text-decoration:none;display:flex;gap:.4rem;align-items:center}
details.switcher{position:relative}details.switcher[open]>.panel{position:absolute;left:0;top:calc(100% + .25rem);margin:0;z-index:20;width:min(30rem,90vw)}details.switcher ul.drives{list-style:none;margin:0;padding:0}details.switcher li{padding:.35rem 0;border-bottom:1px solid var(--line);display:flex;flex-direction:column}details.switcher li[aria-current] a{font-weight:700}
header.top nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.95rem}
header.top form.search{margin:0 0 0 auto;display:flex;gap:.25rem;flex:1 1 14rem;max-width:24rem}
header.top form.search input{flex:1;min-width:0}
input[type=email],input[type=password],input[type=text],input[type=search],input[type=file],select{padding:.45rem .55rem;font:inherit;border:1px solid #b9c0c8;border-radius:6px;background:#fff;max-width:100%}
input[type=email],input[type=password],input[type=text]{width:100%}
button,.button{font:inherit;font-weight:500;padding:.4rem .9rem;margin:0 .5rem .25rem 0;cursor:pointer;border:1px solid #b9c0c8;border-radius:6px;background:#fff;color:var(--fg);text-decoration:none;display:inline-flex;gap:.35rem;align-items:center}
button.primary,.button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.danger{border-color:var(--err);color:var(--err)}button.link{border:0;background:none;color:var(--accent);padding:0;text-decoration:underline}
form.inline{display:inline;margin:0}form.inline label{display:inline}
form.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}form.row label{margin:0}form.row input[type=text]{width:auto;min-width:10rem}
.code{font:700 2rem/1.2 ui-monospace,monospace;letter-spacing:.2em}.error{color:var(--err)}.ok{color:var(--ok)}.muted{color:var(--muted);font-size:.92rem}
.notice{border:1px solid var(--line);border-left:4px solid var(--ok);border-radius:var(--radius);padding:.6rem 1rem;margin:1rem 0;background:#f3faf5}
.notice.error{border-left-color:var(--err);background:#fdf3f3}
.secret{font-family:ui-monospace,monospace;word-break:break-all;background:#f1f3f5;padding:.5rem;border-radius:6px}
.copy-row{display:flex;gap:.5rem;align-items:flex-start;margin:.25rem 0 .75rem}.copy-row .secret{flex:1;min-width:0;display:block}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.83rem;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
td.num,th.num{text-align:right;white-space:nowrap}
table.files td.name a{display:inline-flex;gap:.45rem;align-items:center;font-weight:500;word-break:break-word}
table.listing{table-layout:fixed}table.listing .c-kind{width:11rem}table.listing .c-size{width:6.5rem}table.listing .c-date{width:8.5rem}table.listing .c-act{width:3.5rem}
table.listing td.name{overflow-wrap:anywhere}
table.files .folder-icon{color:#c28a00}table.files .file-icon{color:var(--muted)}
.badge{display:inline-flex;gap:.2rem;align-items:center;font-size:.75rem;font-weight:600;padding:.05rem .45rem;border-radius:999px;border:1px solid var(--line);color:var(--muted);margin-left:.4rem;vertical-align:.1em}
.badge.public{color:#8a4b00;border-color:#f0c987;background:#fff7e8}.badge.shared{color:var(--accent);border-color:#bcd0f2;background:var(--accent-bg)}
.crumbs{display:flex;flex-wrap:wrap;gap:.25rem;align-items:center;font-size:.95rem;color:var(--muted);margin:.25rem 0}
.crumbs a{font-weight:500}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-start;margin:.5rem 0 1rem}
.toolbar>.button{margin:0}
.toolbar{position:relative}.toolbar details{position:static}.actions details{position:relative}
.toolbar>details[open]>.panel{position:absolute;left:0;top:calc(100% + .25rem);margin:0;z-index:10;width:min(34rem,100%);max-height:80vh;overflow:auto}
details>summary.danger{border-color:var(--err);color:var(--err)}
details.confirm{display:inline-block;position:relative;vertical-align:top}
details.confirm[open] .panel{white-space:normal;width:min(20rem,calc(100vw - 3rem))}
td.actions-cell{white-space:nowrap}
main.dropping{outline:3px dashed var(--accent);outline-offset:.75rem;border-radius:var(--radius)}
details>summary{cursor:pointer;list-style:none;display:inline-flex;gap:.35rem;align-items:center;padding:.35rem .8rem;border:1px solid #b9c0c8;border-radius:6px;background:#fff;font-weight:500}
details>summary::-webkit-details-marker{display:none}
details[open]>summary{background:var(--accent-bg);border-color:var(--accent)}
details .panel{margin-top:.5rem;border:1px solid var(--line);border-radius:var(--radius);padding:.75rem 1rem;background:#fff;box-shadow:0 4px 16px rgba(0,0,0,.08);max-width:34rem}
.actions summary{padding:.15rem .5rem;font-size:.9rem}
.actions[open] .panel{position:absolute;right:0;z-index:5;width:min(24rem,calc(100vw - 2rem))}
.meta{display:flex;gap:.35rem 1rem;flex-wrap:wrap;align-items:center;color:var(--muted);font-size:.92rem;margin:.5rem 0 1rem}
.card{border:1px solid var(--line);border-radius:var(--radius);padding:1rem;background:var(--bg2)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:1rem}
.stat strong{display:block;font-size:1.44rem}
.doc{border-top:1px solid var(--line);padding-top:1rem;overflow-wrap:break-word}.doc img{max-width:100%}
.doc pre{background:var(--bg2);padding:.75rem;overflow:auto;border-radius:6px;font-size:.875rem}
.doc table{margin:1rem 0;display:block;overflow-x:auto}.doc th,.doc td{border:1px solid var(--line)}
.doc th{text-transform:none;font-size:1rem;color:var(--fg);letter-spacing:0}
.doc .al-left{text-align:left}.doc .al-center{text-align:center}.doc .al-right{text-align:right}
.doc blockquote{border-left:3px solid var(--line);margin-left:0;padding-left:1rem;color:var(--muted)}
.src{display:flex;overflow:auto;border:1px solid var(--line);border-radius:6px;background:#fbfbfb}
.src pre{margin:0;padding:.5rem .75rem;font:13px/1.5 ui-monospace,monospace}.src pre.ln{color:#6b7280;text-align:right;user-select:none;border-right:1px solid var(--line);background:var(--bg2)}
pre.text{white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.5 ui-monospace,monospace;background:#fbfbfb;border:1px solid var(--line);padding:.75rem;border-radius:6px}
pre.diff{font:13px/1.5 ui-monospace,monospace;border:1px solid var(--line);border-radius:6px;overflow:auto;padding:0}
pre.diff span{display:block;padding:0 .75rem;white-space:pre-wrap;overflow-wrap:anywhere}pre.diff .add{background:#e6ffec}pre.diff .del{background:#ffebe9}pre.diff .hunk{background:var(--accent-bg);color:var(--muted)}
iframe.content{width:100%;height:75vh;border:1px solid var(--line);border-radius:6px;background:#fff}img.content{max-width:100%;border:1px solid var(--line)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hit{padding:.75rem 0;border-bottom:1px solid var(--line)}.hit p{margin:.25rem 0}ul.hits{list-style:none;padding:0;margin:0}
ul.passages{margin:.25rem 0 0;padding-left:1.25rem;font-size:.95rem}ul.passages li{margin:.25rem 0}
ul.activity{list-style:none;padding:0;margin:0}ul.activity li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 1rem;padding:.45rem 0;border-bottom:1px solid var(--line)}ul.activity .what{overflow-wrap:anywhere}mark{background:#fff0a8;padding:0 .1em}
.hero{padding:2rem 0}.hero p{font-size:1.2rem;color:var(--muted);max-width:36rem}
@media (max-width:600px){main{margin-top:1rem}h1{font-size:1.44rem}td.hide-narrow,th.hide-narrow{display:none}table.listing{table-layout:auto}table.listing col{width:auto!important}header.top form.search{margin-left:0;max-width:none}}
.hljs-keyword,.hljs-built_in,.hljs-selector-tag{color:#a626a4}.hljs-string,.hljs-attr,.hljs-regexp{color:#3c7a36}.hljs-number,.hljs-literal{color:#8a5a00}
.hljs-comment,.hljs-quote{color:#6a6e76;font-style:italic}.hljs-title,.hljs-function,.hljs-section{color:#2f5fc4}.hljs-type,.hljs-class{color:#8f5f00}
.hljs-meta,.hljs-variable,.hljs-template-variable{color:#b8342a}.hljs-name,.hljs-tag{color:#b8342a}`;
