"""The one stylesheet and the one script every page inlines (no CDN, works offline)."""

from __future__ import annotations

CSS = r"""
:root{--ink:#1b1b1b;--muted:#5c5c5c;--line:#dedbd3;--paper:#faf8f3;--accent:#083d77;--bad:#a4262c;--warn:#8a5300;
--good:#1e6b3a;--sans:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
--serif:"Iowan Old Style","Palatino Linotype",Palatino,Georgia,"Times New Roman",serif;--mono:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 var(--sans);color:var(--ink);background:#fff;overflow-wrap:break-word}
a{color:var(--accent)}
header.top{background:var(--accent);color:#fff;padding:22px 32px 18px}
header.top h1{margin:0 0 4px;font:600 24px/1.25 var(--serif);letter-spacing:.1px}
header.top .sub{opacity:.9;font-size:13.5px}
header.top .sub span+span::before{content:" · "}
nav.toc{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);padding:8px 32px;font-size:13.5px}
nav.toc a{margin-right:18px;text-decoration:none;font-weight:500}
main{max-width:1400px;margin:0 auto;padding:8px 32px 64px}
section{margin:34px 0}
h2{font:600 20px/1.3 var(--serif);border-bottom:2px solid var(--ink);padding-bottom:4px;margin:0 0 14px}
h3{font:600 16px/1.35 var(--sans);margin:22px 0 8px}
h4{font:600 14px/1.35 var(--sans);margin:16px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.5px}
p.lead{max-width:900px;color:#333;margin:6px 0 14px}
.muted{color:var(--muted)}
.small{font-size:12.5px}
code,.mono{font-family:var(--mono);font-size:.9em}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:14px}
.card{border:1px solid var(--line);border-top:5px solid var(--c,var(--accent));border-radius:6px;padding:14px 16px;background:#fff;break-inside:avoid}
.card .model{font-weight:600;word-break:break-word}
.card .big{font:600 46px/1.05 var(--serif);margin:6px 0 2px;font-variant-numeric:tabular-nums}
.card .big small{font:500 14px var(--sans);color:var(--muted)}
.card dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:10px 0 0;font-size:13px}
.card dt{color:var(--muted)} .card dd{margin:0;font-variant-numeric:tabular-nums}
.callout{border-left:5px solid var(--warn);background:#fff8ec;padding:10px 14px;margin:12px 0;border-radius:0 4px 4px 0;break-inside:avoid}
.callout.bad{border-color:var(--bad);background:#fdf1f1}
.callout.info{border-color:var(--accent);background:#eef4fa}
.callout b:first-child{display:block;margin-bottom:2px}
.callout ul{margin:4px 0 0;padding-left:20px}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(460px,100%),1fr));gap:18px 28px;align-items:start}
figure{margin:0;break-inside:avoid}
figcaption{font-weight:600;margin:0 0 6px;font-size:14px}
figcaption .muted{font-weight:400}
svg.chart{max-width:100%;height:auto;display:block;font-family:var(--sans)}
table{border-collapse:collapse;width:100%;font-size:13.5px}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;background:var(--paper);position:sticky;top:37px;z-index:1}
td a.mono{white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover{background:#f6f4ee}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" ▲";font-size:10px}
table.sortable th[aria-sort=descending]::after{content:" ▼";font-size:10px}
.filter{margin:0 0 8px;font:inherit;font-size:13.5px;padding:5px 9px;border:1px solid var(--line);border-radius:5px;width:min(420px,100%)}
.tablewrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
.tablewrap table th{top:0}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap;border:1px solid transparent}
.b-pass{background:#e3f1e7;color:var(--good);border-color:#b7d9c1}
.b-fail{background:#fbe7e7;color:var(--bad);border-color:#efc1c1}
.b-warn{background:#fff1d6;color:var(--warn);border-color:#f0d39b}
.b-na{background:#eee;color:#555}
.b-pen{background:#f3e8fb;color:#5b2a86;border-color:#dcc6ee}
.reward{font-weight:600;font-variant-numeric:tabular-nums}
.bar{display:inline-block;width:64px;height:8px;background:#ece9e1;border-radius:4px;vertical-align:middle;margin-left:6px;overflow:hidden}
.bar i{display:block;height:100%;background:var(--accent)}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
details.task{border:1px solid var(--line);border-radius:6px;margin:10px 0;background:#fff}
details.task>summary{padding:10px 14px;cursor:pointer;display:flex;gap:12px;align-items:baseline;flex-wrap:wrap;list-style-position:outside}
details.task>summary .tid{font-family:var(--mono);font-weight:600}
details.task[open]>summary{border-bottom:1px solid var(--line);background:var(--paper)}
details.task .inner{padding:6px 16px 16px}
details.trial{border-top:1px solid var(--line);margin-top:12px;padding-top:4px}
details.trial>summary{cursor:pointer;font-weight:600;padding:6px 0}
details.sub{margin:10px 0}
details.sub>summary{cursor:pointer;font-weight:600;color:var(--accent)}
.meta{display:flex;flex-wrap:wrap;gap:4px 18px;font-size:13px;color:var(--muted);margin:4px 0 8px}
.meta b{color:var(--ink);font-weight:600}
table.rubrics td.crit{min-width:280px;max-width:520px}
table.rubrics .just{color:#333;font-size:12.5px;margin-top:3px}
table.rubrics .vote{display:block;margin:2px 0;font-size:12.5px}
table.rubrics .vote .jn{font-family:var(--mono);font-size:11.5px;color:var(--muted)}
table.rubrics tr.r-pass td:first-child{box-shadow:inset 4px 0 var(--good)}
table.rubrics tr.r-fail td:first-child{box-shadow:inset 4px 0 var(--bad)}
.redlines{display:grid;grid-template-columns:1fr;gap:18px;margin-top:8px}
@media (min-width:1500px){.redlines.two{grid-template-columns:1fr 1fr}}
.rl-doc{border:1px solid var(--line);border-radius:6px;background:#fff;overflow:hidden}
.rl-bar{display:flex;justify-content:space-between;align-items:center;gap:10px;flex-wrap:wrap;background:var(--paper);padding:6px 12px;border-bottom:1px solid var(--line)}
.rl-label{font-weight:600;min-width:0;overflow-wrap:anywhere}
.rl-modes{font-size:12.5px}
.rl-modes input{position:absolute;opacity:0;width:1px;height:1px}
.rl-modes label{padding:2px 9px;border:1px solid var(--line);border-radius:12px;margin-left:4px;cursor:pointer;background:#fff}
.rl-modes input:checked+label{background:var(--accent);border-color:var(--accent);color:#fff}
.rl-modes input:focus-visible+label{outline:2px solid var(--accent);outline-offset:1px}
.rl-legend{list-style:none;margin:0;padding:6px 12px;font-size:12.5px;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:4px 18px}
.rl-legend .rl-lc{color:var(--muted);margin-left:6px}
.rl-focus{font-size:11px;background:#fff1d6;color:var(--warn);padding:0 5px;border-radius:8px;margin-left:5px}
.rl-dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:5px}
.rl-body{padding:8px 0;font:14.5px/1.55 var(--serif);max-height:900px;overflow-y:auto}
.rl-p{display:grid;grid-template-columns:58px minmax(0,1fr) minmax(180px,34%);gap:0 12px;padding:2px 12px 2px 0;border-left:3px solid transparent}
.rl-p.rl-changed{border-left-color:#8c8c8c}
.rl-num{text-align:right;color:var(--muted);font:12.5px/1.9 var(--sans);font-variant-numeric:tabular-nums;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.rl-text{white-space:pre-wrap;word-wrap:break-word;min-height:1.2em}
.rl-h .rl-text{font-weight:700}
.rl-cell .rl-text{border-left:2px dotted #c7c3b8;padding-left:8px;font-size:13.5px}
.rl-margin{font:12.5px/1.4 var(--sans)}
ins.rl-ins,ins.rl-move-to{color:var(--ac);text-decoration:underline;text-decoration-color:var(--ac);text-underline-offset:2px}
ins.rl-move-to{text-decoration-style:double}
del.rl-del,del.rl-move-from{color:var(--ac);text-decoration:line-through;text-decoration-color:var(--ac)}
del.rl-move-from{text-decoration-style:double}
mark.rl-anchor{background:#fff0b3;color:inherit;border-bottom:1px dashed #b48a00}
a.rl-ref{font:600 10.5px var(--sans);vertical-align:super;text-decoration:none;background:#fff0b3;border-radius:6px;padding:0 4px;margin-left:3px;color:#6b5200}
.rl-thread{border:1px solid #e7d9a8;background:#fffbea;border-radius:5px;padding:5px 8px;margin:2px 0 6px}
.rl-thread.rl-resolved{opacity:.65}
.rl-cid{font-size:11px;color:var(--muted)}
.rl-cnum{display:inline-block;background:#6b5200;color:#fff;border-radius:7px;padding:0 5px;font-weight:700}
.rl-quote .rl-on{font-style:normal;color:var(--muted)}
.rl-quote{font-style:italic;color:#555;margin:2px 0 3px;font-size:11.5px;word-wrap:break-word}
.rl-comment{margin-top:3px;word-wrap:break-word}
.rl-comment.rl-is-reply{margin-left:12px;border-top:1px dashed #e0cf95;padding-top:3px}
.rl-chead{font-size:11.5px}
.rl-chead .rl-date{color:var(--muted);margin-left:6px}
.rl-reply-tag{color:var(--muted);margin-right:4px}
.rl-ctext{white-space:pre-wrap}
.rl-doc:has(.rl-mode-final:checked) del,.rl-doc:has(.rl-mode-orig:checked) ins{display:none}
.rl-doc:has(.rl-mode-final:checked) ins,.rl-doc:has(.rl-mode-orig:checked) del{color:inherit;text-decoration:none}
.rl-doc:has(.rl-mode-final:checked) .rl-p.rl-changed,.rl-doc:has(.rl-mode-orig:checked) .rl-p.rl-changed{border-left-color:transparent}
.packed{padding:10px}
.rl-doc:has(.rl-mode-changes:checked) .rl-p:not(.rl-changed):not(:has(.rl-thread)){display:none}
.files{margin:2px 0 8px;color:var(--muted)}
.rl-missing{border:1px dashed var(--line);border-radius:6px;padding:14px;color:var(--muted);background:var(--paper)}
.rl-error{border-color:#efc1c1;background:#fdf1f1;color:#6d1b1f}
pre.annot{white-space:pre-wrap;word-wrap:break-word;font:12.5px/1.5 var(--mono);background:var(--paper);border:1px solid var(--line);border-radius:6px;padding:12px;max-height:600px;overflow:auto}
.transcript{list-style:none;margin:6px 0;padding:0;font-size:13px;max-height:600px;overflow:auto;border:1px solid var(--line);border-radius:6px}
.transcript .ev{padding:5px 10px;border-bottom:1px solid var(--line);display:grid;grid-template-columns:104px minmax(0,1fr);gap:0 8px}
.transcript .ev-kind{font:600 11.5px/1.8 var(--mono);color:var(--muted)}
.transcript .ev-tool .ev-kind{color:var(--accent)} .transcript .ev-error .ev-kind,.transcript .ev-err{color:var(--bad)}
.transcript .ev-text{white-space:pre-wrap;margin:3px 0 0;font-family:var(--serif)}
.transcript .ev-args{font:12px/1.45 var(--mono);color:#444;margin:2px 0;word-break:break-all}
.transcript ul.edits{margin:2px 0 0;padding-left:16px}
.av-del{color:var(--bad);text-decoration:line-through}
.av-ins{color:var(--good);text-decoration:underline}
.av-cmt{background:#fff0b3}
.av-pid{color:#8a8a8a}
.heat td.h{text-align:center;font-weight:600;font-variant-numeric:tabular-nums;min-width:54px}
.heat th.rot{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;max-height:220px;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom;text-align:left;font-size:12.5px;padding:8px 4px}
.heat td.h{width:58px;max-width:58px}
.heat td.crit{min-width:320px}
.heat td.h.none{background:repeating-linear-gradient(135deg,#fff 0 4px,#eeece6 4px 6px);color:#8a8a8a;font-weight:400;font-size:11px}
.nowrap{white-space:nowrap}
.heat td.crit{font-size:12.5px;max-width:520px}
.brief{white-space:pre-wrap;font:14px/1.55 var(--serif);background:var(--paper);border:1px solid var(--line);border-radius:6px;padding:12px 16px;max-height:420px;overflow:auto;max-width:980px}
.callout details>summary{cursor:pointer;color:var(--accent);margin:2px 0 0 20px}
.kv{display:grid;grid-template-columns:minmax(0,max-content) 1fr;gap:3px 14px;font-size:13.5px}
.kv dt{color:var(--muted)} .kv dd{margin:0;word-break:break-word}
footer{border-top:1px solid var(--line);color:var(--muted);font-size:12.5px;padding:14px 32px;max-width:1400px;margin:0 auto}
.formula{font:13px/1.6 var(--mono);background:var(--paper);border:1px solid var(--line);border-radius:6px;padding:10px 14px;white-space:pre-wrap}
@media (max-width:800px){main{padding:8px 14px 40px}header.top,nav.toc{padding-left:14px;padding-right:14px}.rl-p{grid-template-columns:40px 1fr}.rl-margin{grid-column:2}}
@media print{
 @page{margin:14mm}
 body{font-size:11pt}
 nav.toc{display:none}
 header.top{background:none;color:var(--ink);border-bottom:2px solid var(--ink);padding:0 0 8px}
 main{max-width:none;padding:0}
 th{position:static}
 .rl-body,pre.annot,.brief,.transcript{max-height:none;overflow:visible}
 .rl-modes{display:none}
 details.task,figure,.card,.rl-thread,tr{break-inside:avoid}
 a{color:inherit;text-decoration:none}
 .badge,.swatch,.rl-dot,.heat td.h,.callout,.card,.bar i,mark,.rl-thread,.rl-cnum{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 .filter{display:none}
 .tablewrap{overflow:visible;border:none}
}
"""

# Minimal behaviour that plain HTML cannot give: sortable tables, opening every <details> before
# printing, copying the golden redline beside each trial only when that trial is opened (so the
# attorney's document is stored once per task, not once per trial), and expanding compressed
# blocks of big runs when their section is opened.
SCRIPT = r"""
(function(){
function key(td){var v=td.getAttribute('data-v');if(v!==null&&v!==''){var f=parseFloat(v);if(!isNaN(f))return f;}return (td.textContent||'').trim().toLowerCase();}
document.querySelectorAll('table.sortable').forEach(function(t){
 var ths=t.tHead?t.tHead.rows[0].cells:[];
 Array.prototype.forEach.call(ths,function(th,i){th.tabIndex=0;
  function go(){var b=t.tBodies[0];if(!b)return;var asc=th.getAttribute('aria-sort')!=='ascending';
   Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',asc?'ascending':'descending');
   var rows=Array.prototype.slice.call(b.rows);rows.sort(function(a,c){var x=key(a.cells[i]),y=key(c.cells[i]);
    if(typeof x!==typeof y){x=String(x);y=String(y);}return (x<y?-1:x>y?1:0)*(asc?1:-1);});
   rows.forEach(function(r){b.appendChild(r);});}
  th.addEventListener('click',go);th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();go();}});});});
function own(d,sel){return Array.prototype.filter.call(d.querySelectorAll(sel),function(n){return n.closest('details')===d;});}
function unpack(d){return Promise.all(own(d,'.packed[data-z]').map(function(n){var z=n.getAttribute('data-z');n.removeAttribute('data-z');
 if(typeof DecompressionStream==='undefined')return null;
 var bin=atob(z),bytes=new Uint8Array(bin.length);for(var i=0;i<bin.length;i++)bytes[i]=bin.charCodeAt(i);
 return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text().then(function(h){
  n.innerHTML=h;n.classList.remove('packed');});}));}
function fill(d){return Promise.all(own(d,'[data-golden]').map(function(slot){if(slot.getAttribute('data-filled'))return null;
 var src=document.getElementById(slot.getAttribute('data-golden'));if(!src)return null;
 return unpack(src).then(function(){var doc=src.querySelector('.rl-doc');if(!doc||slot.getAttribute('data-filled'))return;
 var copy=doc.cloneNode(true);var sfx='-'+slot.id;
 copy.querySelectorAll('[id]').forEach(function(n){n.id=n.id+sfx;});
 copy.querySelectorAll('[for]').forEach(function(n){n.setAttribute('for',n.getAttribute('for')+sfx);});
 copy.querySelectorAll('input[name]').forEach(function(n){n.name=n.name+sfx;});
 copy.querySelectorAll('a[href^="#"]').forEach(function(n){n.setAttribute('href',n.getAttribute('href')+sfx);});
 slot.textContent='';slot.appendChild(copy);slot.setAttribute('data-filled','1');});}));}
function opened(d){return unpack(d).then(function(){return fill(d);});}
document.querySelectorAll('details').forEach(function(d){d.addEventListener('toggle',function(){if(d.open)opened(d);});if(d.open)opened(d);});
document.querySelectorAll('input.filter[data-for]').forEach(function(box){var t=document.getElementById(box.getAttribute('data-for'));
 if(!t||!t.tBodies[0])return;box.addEventListener('input',function(){var words=box.value.toLowerCase().split(/\s+/).filter(Boolean);
 Array.prototype.forEach.call(t.tBodies[0].rows,function(r){var text=(r.textContent||'').toLowerCase();
  r.hidden=!words.every(function(w){return text.indexOf(w)>=0;});});});});
window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){d.setAttribute('data-was',d.open?'1':'0');d.open=true;});});
window.addEventListener('afterprint',function(){document.querySelectorAll('details[data-was]').forEach(function(d){d.open=d.getAttribute('data-was')==='1';d.removeAttribute('data-was');});});
})();
"""
