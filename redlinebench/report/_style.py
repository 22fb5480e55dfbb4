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
nav.toc a{display:inline-block;white-space:nowrap;margin-right:18px;text-decoration:none;font-weight:500}
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
.chart-narrow{display:none}
table{border-collapse:collapse;width:100%;font-size:13.5px}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;background:var(--paper);position:sticky;top:37px;z-index:1}
td a.mono{white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap}
th{overflow-wrap:normal;font-size:12.5px;padding-left:6px;padding-right:6px}
.nw{white-space:nowrap}
td.model .runline{display:flex;white-space:nowrap;font-family:var(--mono)}
td.model .rid{overflow:hidden;text-overflow:ellipsis;min-width:3em;max-width:15em}
td.model .rlink{flex:none}
tbody tr:hover{background:#f6f4ee}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" ▲";font-size:10px}
table.sortable th[aria-sort=descending]::after{content:" ▼";font-size:10px}
.filter{margin:0 0 8px;font:inherit;font-size:13.5px;padding:5px 9px;border:1px solid var(--line);border-radius:5px;width:min(420px,100%)}
.tablewrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
.tablewrap table th{top:0}
table.pw-matrix th.pw-col{max-width:9em;white-space:normal;vertical-align:bottom;font-size:13px}
table.pw-matrix th[scope=row]{max-width:14em;font-size:13px;text-align:left}
table.pw-matrix td.pw{min-width:5.5em;font-weight:500;position:relative}
table.pw-matrix td.pw[data-sig="1"]{font-weight:700;outline:2px solid currentColor;outline-offset:-3px}
.pw-mark{display:inline-block;width:1em;text-align:center}
.pw-ci{display:block;font-size:11.5px;font-weight:400;white-space:normal;min-width:9em}
.pw-word{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
ol.pw-ranks{list-style:none;padding-left:0}
ol.pw-ranks li{margin:2px 0}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap;border:1px solid transparent}
.b-pass{background:#e3f1e7;color:var(--good);border-color:#b7d9c1}
.b-fail{background:#fbe7e7;color:var(--bad);border-color:#efc1c1}
.b-warn{background:#fff1d6;color:var(--warn);border-color:#f0d39b}
.b-na{background:#eee;color:#555}
.why{display:block;color:var(--good);margin-top:2px}
.b-integrity{border-style:dashed}
.card .alarm{display:block;margin:4px 0 0;color:var(--bad);font-weight:600;font-size:13px}
.callout.integrity table{font-size:13px;margin-top:6px}
.b-pen{background:#f3e8fb;color:#5b2a86;border-color:#dcc6ee}
.reward{font-weight:600;font-variant-numeric:tabular-nums}
.bar{display:inline-block;width:64px;height:8px;background:#ece9e1;border-radius:4px;vertical-align:middle;margin-left:6px;overflow:hidden}
.bar i{display:block;height:100%;background:var(--accent)}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
details.task{border:1px solid var(--line);border-radius:6px;margin:10px 0;background:#fff}
details.task>summary{padding:10px 14px;cursor:pointer;display:flex;gap:12px;align-items:baseline;flex-wrap:wrap;list-style-position:outside}
details.task>summary .tid{font-family:var(--mono);font-weight:600}
details.task>summary>*{min-width:0;overflow-wrap:anywhere}
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
table.rubrics .just,table.rubrics td.crit,table.rubrics .jn{overflow-wrap:anywhere}
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
.rl-modes label{display:inline-block;white-space:nowrap;margin-top:2px;padding:2px 9px;border:1px solid var(--line);border-radius:12px;margin-left:4px;cursor:pointer;background:#fff}
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
.rl-text.rl-table{align-self:start;display:grid;white-space:normal;border:1px solid #c7c3b8;border-width:0 0 1px 1px;font-size:13.5px}
.rl-td{border:1px solid #c7c3b8;border-width:1px 1px 0 0;padding:3px 6px;white-space:pre-wrap;min-width:0}
.rl-cn{color:var(--muted);font:12px var(--sans)}
.rl-p.rl-tr{padding-top:0;padding-bottom:0}
.rl-tr:has(+ .rl-tr) .rl-table{border-bottom-width:0}
.rl-doc:has(.rl-mode-final:checked) .rl-cp.rl-alldel,.rl-doc:has(.rl-mode-orig:checked) .rl-cp.rl-allins{display:none}
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
.rl-doc:has(.rl-mode-final:checked) .rl-p.rl-alldel:not(:has(.rl-thread)),.rl-doc:has(.rl-mode-orig:checked) .rl-p.rl-allins:not(:has(.rl-thread)){display:none}
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
.av-legend{color:#8a8a8a}
.av-tag{color:#5a5a5a;font-size:11.5px}
.av-note{color:#5a5a5a;font-style:italic}
.av-audit{background:#fde2e2;color:#6d1b1f;font-weight:600}
.av-hidnote{background:#efe6ff;color:#4b2a7a}
.av-hidden{background:#efe6ff;outline:1px dashed #8c6bc4}
.av-hidmark{color:#8c6bc4}
.heat td.h{text-align:center;font-weight:600;font-variant-numeric:tabular-nums;min-width:54px}
.heat th.rot{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;max-height:260px;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom;text-align:left;font-size:12.5px;padding:8px 4px}
.heat td.h{width:58px;max-width:58px}
.heat td.crit{min-width:320px}
.heat td.h.none{background:repeating-linear-gradient(135deg,#fff 0 4px,#eeece6 4px 6px);color:#8a8a8a;font-weight:400;font-size:11px}
.nowrap{white-space:nowrap}
.heat td.crit{font-size:12.5px;max-width:520px}
.brief{white-space:pre-wrap;font:14px/1.55 var(--serif);background:var(--paper);border:1px solid var(--line);border-radius:6px;padding:12px 16px;max-height:420px;overflow:auto;max-width:980px}
.callout details>summary{cursor:pointer;color:var(--accent);margin:2px 0 0 20px}
.kv{display:grid;grid-template-columns:minmax(0,max-content) minmax(6em,1fr);gap:3px 14px;font-size:13.5px}
.kv dt{color:var(--muted)} .kv dd{margin:0;overflow-wrap:anywhere}
figcaption{overflow-wrap:anywhere}
footer{border-top:1px solid var(--line);color:var(--muted);font-size:12.5px;padding:14px 32px;max-width:1400px;margin:0 auto}
.formula{font:13px/1.6 var(--mono);background:var(--paper);border:1px solid var(--line);border-radius:6px;padding:10px 14px;white-space:pre-wrap}
@media (max-width:600px){figure{overflow-x:auto}svg.chart{max-width:none}#task-table .bar{display:none}#task-table td.model .nw{white-space:normal}
 table.rubrics,table.rubrics tbody,table.rubrics tr,table.rubrics td{display:block;width:auto}
 table.rubrics thead{display:none}
 table.rubrics tr{border-bottom:1px solid var(--line);padding:6px 0}
 table.rubrics td{border:0;padding:2px 10px;text-align:left}
 table.rubrics td.crit{min-width:0;max-width:none}
 table.rubrics td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-size:12px;font-weight:600}
 table.rubrics tr.r-pass td:first-child,table.rubrics tr.r-fail td:first-child{box-shadow:none}
 table.rubrics tr.r-pass{box-shadow:inset 4px 0 var(--good)} table.rubrics tr.r-fail{box-shadow:inset 4px 0 var(--bad)}
 .chart-wide{display:none} .chart-narrow{display:block}}
[id]{scroll-margin-top:56px}
@media (max-width:800px){[id]{scroll-margin-top:96px}}
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
 [data-golden]:not([data-filled]){display:none}
 .tablewrap{overflow:visible;border:none}
}
"""

# Minimal behaviour that plain HTML cannot give: sortable tables, copying the golden redline beside
# each trial only when that trial is opened (so the attorney's document is stored once per task, not
# once per trial), expanding compressed blocks of big runs when their section is opened, and before
# printing, opening every <details> and expanding every compressed block. Expanding is synchronous
# (a small inflate, no DecompressionStream) because browsers print right after beforeprint returns.
SCRIPT = r"""
(function(){
// text sorts naturally (k2 before k10), as the page lists rubric ids
var NAT=new Intl.Collator(undefined,{numeric:true,sensitivity:'base'});
// an empty cell or a dash (no value) sorts last in both directions
function key(td){var v=td.getAttribute('data-v');if(v!==null&&v!==''){var f=parseFloat(v);if(!isNaN(f))return f;}
 var s=(td.textContent||'').trim().toLowerCase();return s===''||s==='\u2014'?null:s;}
document.querySelectorAll('table.sortable').forEach(function(t){
 var ths=t.tHead?t.tHead.rows[0].cells:[];
 Array.prototype.forEach.call(ths,function(th,i){th.tabIndex=0;
  function go(){var b=t.tBodies[0];if(!b)return;var asc=th.getAttribute('aria-sort')!=='ascending';
   Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',asc?'ascending':'descending');
   var rows=Array.prototype.slice.call(b.rows);rows.sort(function(a,c){var x=key(a.cells[i]),y=key(c.cells[i]);
    if(x===null||y===null)return x===y?0:x===null?1:-1;
    if(typeof x!==typeof y){x=String(x);y=String(y);}
    return (typeof x==='string'?NAT.compare(x,y):x<y?-1:x>y?1:0)*(asc?1:-1);});
   rows.forEach(function(r){b.appendChild(r);});}
  th.addEventListener('click',go);th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();go();}});});});
function own(d,sel){return Array.prototype.filter.call(d.querySelectorAll(sel),function(n){return n.closest('details')===d;});}
// Raw DEFLATE (RFC 1951), synchronous: a packed block can be expanded inside a beforeprint handler,
// which browsers do not wait for (they lay out the print right after it returns).
var LB=[3,4,5,6,7,8,9,10,11,13,15,17,19,23,27,31,35,43,51,59,67,83,99,115,131,163,195,227,258],
 LE=[0,0,0,0,0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,0],
 DB=[1,2,3,4,5,7,9,13,17,25,33,49,65,97,129,193,257,385,513,769,1025,1537,2049,3073,4097,6145,8193,12289,16385,24577],
 DE=[0,0,0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,13],
 ORDER=[16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1,15],FIXED=null;
function huff(lens){var max=0,i,l,code=0;for(i=0;i<lens.length;i++)if(lens[i]>max)max=lens[i];
 var count=new Uint16Array(16),next=new Uint16Array(16),t=new Uint32Array(1<<max);
 for(i=0;i<lens.length;i++)count[lens[i]]++;count[0]=0;
 for(l=1;l<16;l++){code=(code+count[l-1])<<1;next[l]=code;}
 for(i=0;i<lens.length;i++){l=lens[i];if(!l)continue;var c=next[l]++,r=0;for(var k=0;k<l;k++)r=(r<<1)|(c>>k&1);
  for(var j=r;j<t.length;j+=1<<l)t[j]=i<<4|l;}
 return {t:t,m:max};}
function inflate(src){var out=new Uint8Array(src.length*4+1024),op=0,pos=0,bb=0,bc=0,fin,type,i,n,s,lit,dist;
 function need(k){while(bc<k){if(pos>src.length+4)throw new Error('truncated');bb|=(pos<src.length?src[pos]:0)<<bc;pos++;bc+=8;}}
 function bits(k){need(k);var v=bb&(1<<k)-1;bb>>>=k;bc-=k;return v;}
 function sym(h){need(h.m);var e=h.t[bb&(1<<h.m)-1],l=e&15;if(!l)throw new Error('bad code');bb>>>=l;bc-=l;return e>>4;}
 function room(k){if(op+k>out.length){var o=new Uint8Array(Math.max(out.length*2,op+k));o.set(out);out=o;}}
 do{fin=bits(1);type=bits(2);
  if(type===0){bits(bc&7);pos-=bc>>3;bb=bc=0;if(pos+4>src.length)throw new Error('truncated');
   n=src[pos]|src[pos+1]<<8;if(n!==(~(src[pos+2]|src[pos+3]<<8)&65535))throw new Error('bad stored block');pos+=4;
   if(pos+n>src.length)throw new Error('truncated');room(n);out.set(src.subarray(pos,pos+n),op);op+=n;pos+=n;continue;}
  if(type===1){if(!FIXED){var f=new Uint8Array(288),f5=new Uint8Array(30);for(i=0;i<288;i++)f[i]=i<144?8:i<256?9:i<280?7:8;
    f5.fill(5);FIXED=[huff(f),huff(f5)];}lit=FIXED[0];dist=FIXED[1];}
  else if(type===2){var nl=bits(5)+257,nd=bits(5)+1,nc=bits(4)+4,cl=new Uint8Array(19),lens=new Uint8Array(nl+nd);
   for(i=0;i<nc;i++)cl[ORDER[i]]=bits(3);var ch=huff(cl);
   for(i=0;i<nl+nd;){s=sym(ch);if(s<16){lens[i++]=s;continue;}
    var v=0,rep;if(s===16){if(!i)throw new Error('bad lengths');v=lens[i-1];rep=3+bits(2);}else rep=s===17?3+bits(3):11+bits(7);
    if(i+rep>nl+nd)throw new Error('bad lengths');while(rep--)lens[i++]=v;}
   lit=huff(lens.subarray(0,nl));dist=huff(lens.subarray(nl));}
  else throw new Error('bad block type');
  for(;;){s=sym(lit);if(s<256){room(1);out[op++]=s;continue;}if(s===256)break;s-=257;if(s>28)throw new Error('bad length');
   n=LB[s]+bits(LE[s]);s=sym(dist);if(s>29)throw new Error('bad distance');var back=DB[s]+bits(DE[s]);
   if(back>op)throw new Error('bad distance');room(n);for(i=0;i<n;i++,op++)out[op]=out[op-back];}
 }while(!fin);
 return out.subarray(0,op);}
function expand(n){var z=n.getAttribute('data-z');if(z===null)return;n.removeAttribute('data-z');
 try{var bin=atob(z),bytes=new Uint8Array(bin.length);for(var i=0;i<bin.length;i++)bytes[i]=bin.charCodeAt(i);
  n.innerHTML=new TextDecoder().decode(inflate(bytes));n.classList.remove('packed');}
 catch(e){n.textContent='This block could not be unpacked ('+e.message+').';}}
function fill(d){own(d,'[data-golden]').forEach(function(slot){if(slot.getAttribute('data-filled'))return;
 var src=document.getElementById(slot.getAttribute('data-golden'));if(!src)return;
 own(src,'.packed[data-z]').forEach(expand);var doc=src.querySelector('.rl-doc');if(!doc)return;
 var copy=doc.cloneNode(true);var sfx='-'+slot.id;
 copy.querySelectorAll('[id]').forEach(function(n){n.id=n.id+sfx;});
 copy.querySelectorAll('[for]').forEach(function(n){n.setAttribute('for',n.getAttribute('for')+sfx);});
 copy.querySelectorAll('input[name]').forEach(function(n){n.name=n.name+sfx;});
 copy.querySelectorAll('a[href^="#"]').forEach(function(n){n.setAttribute('href',n.getAttribute('href')+sfx);});
 slot.textContent='';slot.appendChild(copy);slot.setAttribute('data-filled','1');});}
function opened(d){own(d,'.packed[data-z]').forEach(expand);fill(d);}
// While printing every section is opened; their toggle events arrive after the print was laid out and are
// ignored, so printing does not copy the golden into every trial (it prints once, in its task's section).
var printing=false;
document.querySelectorAll('details').forEach(function(d){d.addEventListener('toggle',function(){if(d.open&&!printing)opened(d);});if(d.open)opened(d);});
document.querySelectorAll('input.filter[data-for]').forEach(function(box){var t=document.getElementById(box.getAttribute('data-for'));
 if(!t||!t.tBodies[0])return;box.addEventListener('input',function(){var words=box.value.toLowerCase().split(/\s+/).filter(Boolean);
 Array.prototype.forEach.call(t.tBodies[0].rows,function(r){var text=(r.textContent||'').toLowerCase();
  r.hidden=!words.every(function(w){return text.indexOf(w)>=0;});});});});
window.addEventListener('beforeprint',function(){printing=true;
 document.querySelectorAll('details').forEach(function(d){d.setAttribute('data-was',d.open?'1':'0');d.open=true;});
 document.querySelectorAll('.packed[data-z]').forEach(expand);});
window.addEventListener('afterprint',function(){printing=false;
 document.querySelectorAll('details[data-was]').forEach(function(d){d.open=d.getAttribute('data-was')==='1';d.removeAttribute('data-was');});});
})();
"""
